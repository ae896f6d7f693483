#!/bin/sh
# bench/gpu-check.sh's argument handling, which runs before anything needs
# a GPU: --help succeeds, and a missing kit, an unknown option, extra
# arguments and a non-numeric size variable are refused with exit 2 and a
# message, before any build or output directory is touched.
# Usage: gpu-check-args.sh REPO_ROOT
set -u
script=$1/bench/gpu-check.sh
fails=0
expect() { # RC PATTERN -- command...
	want=$1 pat=$2
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ] || ! printf '%s\n' "$out" | grep -q -- "$pat"; then
		echo "FAIL: $* exited $rc (want $want), said: $out"
		fails=$((fails + 1))
	else
		echo "ok: $*"
	fi
}
tmp=$(mktemp -d)
expect 0 usage -- "$script" --help
expect 2 "no kit directory" -- "$script" --kit "$tmp/none"
expect 2 usage -- "$script" --kit
expect 2 usage -- "$script" --bogus
expect 2 usage -- "$script" "$tmp/a" "$tmp/b"
expect 2 "TOTAL_S must be a whole number" -- env TOTAL_S=8m "$script" "$tmp/build"
expect 2 "MSM_MAX must be a whole number" -- env MSM_MAX=-1 "$script" --kit "$tmp"
expect 2 "NTT_MAX must be within 16..28" -- env NTT_MAX=29 "$script" --kit "$tmp"
expect 2 "MSM_MAX must be within 16..28" -- env MSM_MAX=12 "$script" "$tmp/build"
expect 2 "SEED must be a whole number" -- env SEED=x "$script" --kit "$tmp"
if [ -e "$tmp/build" ] || [ -e "$tmp/none" ]; then
	echo "FAIL: a refused call created a directory"
	fails=$((fails + 1))
fi
rm -rf "$tmp"
exit $((fails > 0))
