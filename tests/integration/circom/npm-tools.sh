#!/usr/bin/env bash
# Installs circom2 and snarkjs, at the versions that package.json and
# package-lock.json beside this script pin, into a cache directory, and prints
# the directory that holds their executables (node_modules/.bin).
#
# Cache: $ZKPD_NPM_CACHE, else $XDG_CACHE_HOME/zkpd-npm, else
# ~/.cache/zkpd-npm; one subdirectory per lock file, reused when complete.
# Concurrent callers wait on a lock; an install is built in a temporary
# directory and renamed into place, so a crash never leaves a half install.
#
# Exit 0 and the path on stdout; 77 (ctest's "skipped") with the reason on
# stderr when node or npm is missing or npm cannot reach its registry; 1 when
# the install fails for another reason.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=${ZKPD_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zkpd-npm}
key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
dir=$root/tools-$key

ready() {
  [ -f "$dir/.complete" ] && [ -x "$dir/node_modules/.bin/circom2" ] &&
    [ -x "$dir/node_modules/.bin/snarkjs" ]
}

skip() {
  echo "skip: $*" >&2
  exit 77
}

if ready; then
  echo "$dir/node_modules/.bin"
  exit 0
fi

command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || skip "npm is not installed (Debian: apt-get install npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is too old for circom2's WASI build (18 or later)"

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if ready; then
  echo "$dir/node_modules/.bin"
  exit 0
fi

# Ask first: an unreachable registry then costs seconds, not npm's retries.
if ! timeout 60 npm ping --fetch-retries=1 --fetch-retry-mintimeout=2000 \
       --fetch-timeout=20000 >/dev/null 2>&1; then
  skip "npm cannot reach its registry (npm ping failed); circom2 and snarkjs are not installed"
fi

tmp=$(mktemp -d "$root/.install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$tmp/"
echo "npm-tools: installing circom2 and snarkjs into $dir" >&2
start=$(date +%s)
if ! (cd "$tmp" && timeout 900 npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=2 --fetch-timeout=60000) >"$tmp/npm.log" 2>&1; then
  if ! timeout 60 npm ping --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>&1; then
    skip "npm lost its registry during the install (npm ping failed)"
  fi
  echo "npm-tools: npm ci failed:" >&2
  tail -n 30 "$tmp/npm.log" >&2
  exit 1
fi
touch "$tmp/.complete"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "npm-tools: installed in $(($(date +%s) - start)) s" >&2
echo "$dir/node_modules/.bin"
