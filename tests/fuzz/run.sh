#!/usr/bin/env bash
# Builds every fuzz target (tests/fuzz/README.md) with clang, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer, and runs each for SECONDS
# on a fresh copy of its seed corpus, as many targets at once as there are
# cores.
#   tests/fuzz/run.sh SECONDS [BUILD_DIR]      (BUILD_DIR: build-fuzz)
# Under BUILD_DIR: build/ (the CMake tree), corpus/TARGET/ (the working
# corpus), crashes/TARGET/ (crash-*, leak-*, timeout-*, oom-* inputs),
# logs/TARGET.log. Prints the executions of each target; exits 1 if any
# target crashed, leaked, timed out or ran out of memory (the input is kept
# under crashes/; add it to tests/fuzz/regressions/TARGET/).
# FUZZ_TARGETS="wire ec" limits the run to those targets.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]" >&2
  exit 2
fi
secs=$1
cd "$(dirname "$0")/../.."
dir=${2:-build-fuzz}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$PWD/tests/fuzz
targets=${FUZZ_TARGETS:-wire witness r1cs groth16_pk groth16_vk pce config ec journal c1}
jobs=$(nproc 2>/dev/null || echo 2)

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
flags+=" -fno-omit-frame-pointer"
CC=clang cmake -S . -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DZKPD_FUZZ=ON -DZKPD_JEMALLOC=OFF -DZKPD_CUDA=OFF \
  -DZKPD_FF_ASM=OFF -DBUILD_TESTING=OFF >"$dir/configure.log"
build=()
for t in $targets; do
  build+=("fuzz_$t")
done
cmake --build "$dir/build" -j "$jobs" --target "${build[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
mkdir -p "$dir/logs"

# One target's run; its exit status goes to logs/TARGET.rc.
run_target() {
  local t=$1 rc=0
  rm -rf "$dir/corpus/$t" "$dir/crashes/$t"
  mkdir -p "$dir/corpus/$t" "$dir/crashes/$t"
  cp "$src/corpus/$t"/* "$dir/corpus/$t/"
  "$dir/build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$dir/crashes/$t/" "$dir/corpus/$t" \
    >"$dir/logs/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$dir/logs/$t.rc"
}

# Each libFuzzer process keeps one core busy: as many run at once as there
# are cores, and the results are printed in the targets' order.
pids=()
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    sleep 0.2
  done
  run_target "$t" &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p"
done

failed=()
for t in $targets; do
  log=$dir/logs/$t.log
  rc=$(cat "$dir/logs/$t.rc")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz_%-11s %10s executions in %s s: ok\n' "$t" "${execs:-?}" "$secs"
  else
    printf 'fuzz_%-11s FAILED (exit %d): %s\n' "$t" "$rc" \
      "$(ls "$dir/crashes/$t" | head -n 1)"
    grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*invariant broken)' "$log" || true
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run.sh: ${failed[*]} failed; inputs under $dir/crashes/, logs under $dir/logs/" >&2
  exit 1
fi
echo "run.sh: every target ran $secs s without a failure"
