#!/usr/bin/env bash
# bench/gpu-check.sh end to end on whatever this machine has, inside a
# short budget: the build's programs stand in for a kit (symbolic links),
# TOTAL_S is 90 s. Without a GPU every GPU step must fail (exit 1), with
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
# A variant build (bench/gpu-kit.sh): the default's zkpd-bench stands in.
ln -s "$build/bench/zkpd-bench" "$tmp/kit/bin/zkpd-bench.cios"
echo "cios ZKPD_CUDA_FP_KARATSUBA=OFF" >"$tmp/kit/variants.txt"
# A stand-in ncu first on PATH: the counters step's plumbing and report
# (the real one, where installed, is for a GPU run) from CSV rows of the
# kernel it is asked for: k_group's 4 warp instructions take 17
# wavefronts (1.06 of ideal).
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/ncu" <<'EOF'
#!/bin/sh
k= m=
while [ $# -gt 0 ]; do
	[ "$1" = --kernel-name ] && k=${2#regex:}
	[ "$1" = --metrics ] && m=$2
	shift
done
h='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
echo "$h"
r='"0","1","zkpd-bench","h","'$k'(a *, b)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","m"'
case $m in
*issue_stalled*)
	# the stalls run: k_group waits on its barriers most
	echo "$r"',"smsp__issue_active.avg.pct_of_peak_sustained_active","%","41.5"'
	echo "$r"',"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","inst","3.5"'
	echo "$r"',"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio","inst","1.25"'
	exit 0
	;;
esac
if [ "$k" = k_acc_chunk ]; then
	echo "$r"',"launch__registers_per_thread","register/thread","166"'
	exit 0
fi
echo "$r"',"launch__registers_per_thread","register/thread","64"'
echo "$r"',"smsp__sass_inst_executed_op_shared_ld.sum","inst","4"'
echo "$r"',"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","","17"'
echo "$r"',"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","1"'
echo '{"check":"summary"}'
EOF
chmod +x "$tmp/fakebin/ncu"
total=90
t0=$SECONDS
PATH=$tmp/fakebin:$PATH GPU_CHECK_OUT=$tmp/out TOTAL_S=$total SEED=1 \
	"$root/bench/gpu-check.sh" --kit "$tmp/kit" \
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
for r in "host math test" "gpu field arithmetic" "gpu tests" "msm g1 2^16..2^27 checked" \
	"msm g1 2^25 build default" "msm g1 2^25 build cios" "msm g1 skewed scalars" \
	"msm g1 window sweep 2^24" "msm g1 window sweep 2^26" "msm g1 window sweep 2^27" "msm g2 2^16..2^24 checked" "ntt spots 2^16..2^24" "ntt spots 2^27" "setup gpu = cpu 2^20" \
	"proof 2^20 gpu and cpu" "proof 2^27 gpu" "zkpd on the GPU" "ncu counters" "ncu stalls" "ntt timing"; do
	grep -qF "$r" "$sum" || fail "no row for '$r'"
done
grep -q "skipped  *estimated" "$sum" || fail "no step was skipped for the budget"
if ! grep -q "^ncu counters  *skipped  *estimated" "$sum"; then
	grep -q "^ncu counters  *ok  *k_group 64 regs.*shared ld 1.06 of ideal (1 conflicts); k_acc_chunk 166 regs" "$sum" ||
		fail "ncu counters misreported: $(grep '^ncu counters' "$sum")"
fi
[ "$(grep -c '^msm g1 2^25 build default ' "$sum")" -eq 2 ] ||
	fail "the default build's MSM not timed before and after the variant"
if grep -q '^msm g1 2^25 build cios  *ok' "$sum" &&
	! grep -q '^{"variant":"cios","check"' "$tmp/out/gpu-check.json"; then
	fail "the variant's JSON lines are not tagged"
fi
if ! grep -q "^ncu stalls  *skipped  *estimated" "$sum"; then
	grep -q "^ncu stalls  *ok  *k_group issue 42% busy.*stalled a issue: barrier 3.50 short_scoreboard 1.25; k_acc_chunk issue" "$sum" ||
		fail "ncu stalls misreported: $(grep '^ncu stalls' "$sum")"
fi
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
