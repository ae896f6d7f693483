#!/usr/bin/env bash
# GPU check for a lent GPU machine (shared/DESIGN.md, "Where things run"):
# builds with the CUDA backend into build-gpu, runs the gpu tests (every
# kernel against the CPU backend) and the host math test, then times the
# G1 MSM at 2^20..2^26 and the NTT at 2^20..2^26 and prints a table last.
# Designed to finish within 8 minutes on an H200.
#
# Usage: bench/gpu-check.sh [BUILD_DIR]   (default: build-gpu next to bench/)
# Environment: JOBS (build parallelism, default: all cores),
#              MSM_MAX / NTT_MAX (largest log2 size, default 26).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-gpu}
jobs=${JOBS:-$(nproc)}
msm_max=${MSM_MAX:-26}
ntt_max=${NTT_MAX:-26}
log=$build/gpu-check.log
start=$SECONDS

step() { printf '== %s (%ds)\n' "$*" $((SECONDS - start)); }

if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
fi

step "configure"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# No -Werror and no jemalloc here: a lent machine's compiler and packages
# may differ from CI's, and this script measures rather than lints.
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DZKPD_CUDA=ON \
	-DZKPD_JEMALLOC=OFF >/dev/null

step "build"
cmake --build "$build" -j "$jobs" --target test_gpu_backend test_cuda_math zkpd-gpu-bench

mkdir -p "$build"
: >"$log"
status=0

step "host math test"
if ! "$build/tests/unit/cuda/test_cuda_math" 2>&1 | tee -a "$log"; then
	echo "test_cuda_math FAILED"
	status=1
fi

step "gpu tests (ctest -L gpu)"
if ! (cd "$build" && ctest -L gpu --output-on-failure --timeout 300) 2>&1 | tee -a "$log"; then
	echo "ctest -L gpu FAILED"
	status=1
fi
if grep -q "(Skipped)" "$log"; then
	echo "gpu tests were SKIPPED: no CUDA device seen"
	status=1
fi

step "timing"
json=$build/gpu-bench.json
if ! timeout 300 "$build/bench/zkpd-gpu-bench" ntt 20 "$ntt_max" msm 20 "$msm_max" \
	| tee "$json"; then
	echo "zkpd-gpu-bench FAILED (partial results kept)"
	status=1
fi

step "done"
# One table from the JSON lines: {"op":"msm_g1","log_n":20,"ms":..} and
# {"op":"ntt","log_n":20,"fwd_ms":..,"inv_coset_ms":..}.
awk '
function field(line, key,    re, v) {
	re = "\"" key "\":[^,}]*"
	if (!match(line, re)) return ""
	v = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	gsub(/"/, "", v)
	return v
}
BEGIN { printf "%-8s %6s %12s %16s\n", "op", "log_n", "ms", "inv_coset_ms" }
/"op":"msm_g1"/ { printf "%-8s %6s %12s %16s\n", "msm_g1", field($0, "log_n"), field($0, "ms"), "-" }
/"op":"ntt"/ { printf "%-8s %6s %12s %16s\n", "ntt", field($0, "log_n"), field($0, "fwd_ms"), field($0, "inv_coset_ms") }
' "$json"
if [ "$status" -eq 0 ]; then
	echo "gpu-check: all checks passed in $((SECONDS - start)) s"
else
	echo "gpu-check: FAILURES (see above and $log), $((SECONDS - start)) s"
fi
exit "$status"
