#!/usr/bin/env bash
# The memory-regression check (docs/memory.md, "The CI check").
#
#   bench/memory-check.sh BUILD_DIR [--update | --summary FILE]
#
# Builds nothing: uses BUILD_DIR's zkp and zkpd-bench. Makes a fixed
# synthetic PoRep-shaped circuit (65,534 constraints, seed 1: with its 2
# inputs the domain is exactly 2^16) and INSECURE dev keys (`zkp setup
# --seed 1`), runs `zkpd-bench pipeline` for 20 proofs in one pipeline on 2
# threads, and fails when
#   1. peak RSS, over the whole run or over the proofs alone (the whole
#      run's peak is the key's load transient at this size), exceeds
#      bench/memory-baseline.json's by more than 10%;
#   2. RSS after the last proof's purge is not within max(5%, 32 MiB) of
#      the post-load level;
#   3. steady RSS grows: the median post-purge RSS of proofs 11-20 exceeds
#      that of proofs 1-10 by more than max(2%, 8 MiB);
#   4. steady (post-purge) RSS exceeds the baseline's by more than
#      max(10%, 16 MiB).
# --update rewrites bench/memory-baseline.json from this run (review the
# diff before committing it). ZKPD_MEMORY_BASELINE=FILE reads (or, with
# --update, writes) another baseline file instead. The run's pipeline.json, CSVs and plot stay
# in BUILD_DIR/memory-check/. --summary FILE judges a saved `zkpd-bench
# pipeline` summary instead of running one (a figure missing from it fails
# the check). Exit 0 pass, 1 fail, 2 usage, 77 skipped (a build without
# jemalloc: the baseline holds jemalloc figures).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
baseline_file="${ZKPD_MEMORY_BASELINE:-$here/memory-baseline.json}"
summary=
if [ $# -eq 3 ] && [ "$2" = "--summary" ]; then
  summary=$3
elif [ $# -lt 1 ] || [ $# -gt 2 ] || { [ $# -eq 2 ] && [ "$2" != "--update" ]; }; then
  echo "usage: $0 BUILD_DIR [--update | --summary FILE]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
update=${2:-}
[ -z "$summary" ] || update=
zkp="$build/src/tools/zkp"
bench="$build/bench/zkpd-bench"
for p in "$zkp" "$bench"; do
  if [ ! -x "$p" ]; then
    echo "memory-check: $p not built" >&2
    exit 2
  fi
done

constraints=65534
proofs=20
out="$build/memory-check"
work=$(mktemp -d "${TMPDIR:-/tmp}/zkpd-memcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$out"

start=$(date +%s)
if [ -n "$summary" ]; then
  cp "$summary" "$work/summary.json"
elif ! "$zkp" synth --shape porep --constraints "$constraints" --seed 1 -o "$work/c.pce" \
     >"$work/prep.log" 2>&1 ||
   ! "$zkp" setup "$work/c.pce" -o "$work/k" --seed 1 --threads 2 >>"$work/prep.log" 2>&1; then
  cat "$work/prep.log" >&2
  echo "memory-check: cannot make the circuit and keys" >&2
  exit 1
fi
if [ -z "$summary" ]; then
  # Trusted dev keys decoded from the .params every time (no cache), so the
  # key is heap memory in every run and the figures do not depend on a cache.
  "$bench" pipeline --pce "$work/c.pce" --key "$work/k.INSECURE-DEV.params" -n "$proofs" \
    --pipelines 1 --threads 2 --trust-key --no-cache --out "$out" >"$work/summary.json"
fi
elapsed=$(( $(date +%s) - start ))

# The summary has one top-level field per line: "  \"name\": value,".
field() {
  sed -n "s/^  \"$1\": \\([^,]*\\),\\{0,1\\}\$/\\1/p" "$2" | head -n 1
}
s="$work/summary.json"
if [ "$(field jemalloc "$s")" != "true" ]; then
  echo "memory-check: skipped: zkpd-bench does not run on jemalloc in this build"
  exit 77
fi
peak=$(field peak_rss_mib "$s")
post_load=$(field post_load_rss_mib "$s")
last=$(field last_purge_rss_mib "$s")
first_half=$(field steady_first_half_mib "$s")
second_half=$(field steady_second_half_mib "$s")
predicted=$(field predicted_peak_rss_mib "$s")
run_peak=$(field proving_peak_rss_mib "$s")
run_predicted=$(field predicted_proving_peak_rss_mib "$s")
# A figure the run did not print is a failure, never a 0 that passes.
for f in peak_rss_mib post_load_rss_mib last_purge_rss_mib steady_first_half_mib \
         steady_second_half_mib predicted_peak_rss_mib proving_peak_rss_mib \
         predicted_proving_peak_rss_mib; do
  if ! [[ "$(field "$f" "$s")" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "memory-check: the run printed no number for $f (summary: $s)" >&2
    exit 1
  fi
done

if [ "$update" = "--update" ]; then
  cat >"$baseline_file" <<JSON
{
  "circuit": "zkp synth --shape porep --constraints $constraints --seed 1",
  "key": "zkp setup --seed 1",
  "proofs": $proofs,
  "pipelines": 1,
  "threads": 2,
  "peak_rss_mib": $peak,
  "proving_peak_rss_mib": $run_peak,
  "steady_rss_mib": $second_half,
  "post_load_rss_mib": $post_load,
  "predicted_peak_rss_mib": $predicted,
  "predicted_proving_peak_rss_mib": $run_predicted
}
JSON
  echo "memory-check: wrote $baseline_file (peak $peak MiB, steady $second_half MiB); review and commit it"
  exit 0
fi

base_peak=$(field peak_rss_mib "$baseline_file")
base_run_peak=$(field proving_peak_rss_mib "$baseline_file")
base_steady=$(field steady_rss_mib "$baseline_file")
if [ -z "$base_peak" ] || [ -z "$base_run_peak" ] || [ -z "$base_steady" ]; then
  echo "memory-check: $baseline_file lacks peak_rss_mib, proving_peak_rss_mib" \
       "or steady_rss_mib" >&2
  exit 1
fi

awk -v peak="$peak" -v base_peak="$base_peak" -v post_load="$post_load" -v last="$last" \
    -v h1="$first_half" -v h2="$second_half" -v base_steady="$base_steady" \
    -v predicted="$predicted" -v run_peak="$run_peak" -v base_run_peak="$base_run_peak" \
    -v run_predicted="$run_predicted" -v elapsed="$elapsed" -v out="$out" '
function max(a, b) { return a > b ? a : b }
function abs(a) { return a < 0 ? -a : a }
function check(ok, what) {
  printf "memory-check: %s %s\n", ok ? "ok  " : "FAIL", what
  if (!ok) failed = 1
}
BEGIN {
  check(peak <= base_peak * 1.10,
        sprintf("peak RSS %.1f MiB vs baseline %.1f MiB (limit +10%%: %.1f); model %.1f",
                peak, base_peak, base_peak * 1.10, predicted))
  check(run_peak <= base_run_peak * 1.10,
        sprintf("proofs%s peak RSS %.1f MiB vs baseline %.1f MiB (limit +10%%: %.1f); model %.1f",
                "\047", run_peak, base_run_peak, base_run_peak * 1.10, run_predicted))
  tol = max(0.05 * post_load, 32)
  check(abs(last - post_load) <= tol,
        sprintf("RSS after the last purge %.1f MiB vs post-load %.1f MiB (limit +-%.1f)",
                last, post_load, tol))
  grow = max(0.02 * h1, 8)
  check(h2 - h1 <= grow,
        sprintf("steady RSS proofs 11-20 %.1f MiB vs 1-10 %.1f MiB (growth limit %.1f)",
                h2, h1, grow))
  stol = max(0.10 * base_steady, 16)
  check(h2 <= base_steady + stol,
        sprintf("steady RSS %.1f MiB vs baseline %.1f MiB (limit +%.1f)", h2, base_steady, stol))
  if (peak < base_peak * 0.8)
    printf "memory-check: note: peak is well below the baseline; consider --update\n"
  printf "memory-check: %s in %d s; details in %s/pipeline.json\n",
         failed ? "FAILED" : "passed", elapsed, out
  exit failed
}'
