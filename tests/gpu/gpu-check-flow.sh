#!/usr/bin/env bash
# bench/gpu-check.sh end to end on whatever this machine has, inside a
# short budget: the build's programs stand in for a kit (symbolic links),
# TOTAL_S is 75 s. Without a GPU every GPU step must fail (exit 1), with
# one they may pass; either way the script must finish inside its budget
# (plus the 5 s that `timeout -k` may add), skip the steps whose estimates
# do not fit with a "skipped" row, write summary.txt with a row for every
# step, and leave at most 8 files in GPU_CHECK_OUT (what a lent machine
# returns).
# Usage: gpu-check-flow.sh REPO_ROOT BUILD_DIR
set -u
root=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/kit/bin" "$tmp/kit/lib" "$tmp/out"
for p in tests/unit/cuda/test_cuda_math tests/gpu/test_gpu_field tests/gpu/test_gpu_backend \
	bench/zkpd-gpu-bench bench/zkpd-bench src/daemon/zkpd src/daemon/zkpctl src/tools/zkp; do
	ln -s "$build/$p" "$tmp/kit/bin/"
done
ln -s "$build/bench/zkpd-bench" "$tmp/kit/bin/zkpd-bench-mb4"
total=75
t0=$SECONDS
GPU_CHECK_OUT=$tmp/out TOTAL_S=$total SEED=1 "$root/bench/gpu-check.sh" --kit "$tmp/kit" \
	>"$tmp/stdout" 2>&1
rc=$?
took=$((SECONDS - t0))
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "exit $rc (want 0 or 1)"
[ "$took" -le $((total + 5)) ] || fail "took $took s of a $total s budget"
sum=$tmp/out/summary.txt
[ -s "$sum" ] || fail "no summary.txt"
for r in "host math test" "gpu field arithmetic" "gpu tests" "msm g1 2^16..2^27 checked" "msm g1 skewed scalars" \
	"msm g2 (host)" "ntt spots 2^16..2^24" "ntt spots 2^27" "proof 2^20 gpu and cpu" \
	"proof 2^27 gpu" "zkpd on the GPU" "msm min blocks 4 vs default" "ntt timing"; do
	grep -qF "$r" "$sum" || fail "no row for '$r'"
done
grep -q "skipped  *estimated" "$sum" || fail "no step was skipped for the budget"
if [ "$rc" -eq 1 ]; then
	grep -q FAILED "$sum" || fail "exit 1 without a FAILED row"
fi
n=$(find "$tmp/out" -type f | wc -l)
[ "$n" -le 8 ] || fail "$n files in GPU_CHECK_OUT (at most 8 come back)"
if [ "$fails" -gt 0 ]; then
	cat "$tmp/stdout"
	exit 1
fi
echo "ok: exit $rc in $took s"
cat "$sum"
