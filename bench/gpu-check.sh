#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU (docs/benchmarks.md,
# "bench/gpu-check.sh"): builds with the CUDA backend into build-gpu (or
# takes a kit's programs), then, each step under `timeout` and inside one
# time budget:
#   1. the host math test, the field test (the carry-flag PTX of the field
#      arithmetic against its host emulation) and the gpu tests (every
#      kernel against the CPU backend, small sizes);
#   2. results at scale, checked in O(n) on the CPU (zkpd-bench check):
#      the G1 MSM at 2^16..2^MSM_MAX (default 27) on random scalars, 3 runs
#      a size, every result checked (these are also the MSM timings, 2^26
#      and 2^27 among them); the kit's variant builds (bench/gpu-kit.sh)
#      timed against the default one; every kind of skewed scalars (all
#      equal, four values repeated, small, r-1, 0/1-heavy: the split of
#      bit-valued scalars) at 2^16..2^24; the G2 MSM on the device at
#      2^16..2^G2_MAX (default 24) on random and 0/1 scalars; NTT spot checks of the
#      prover's four transforms at 2^16..2^24 and at 2^NTT_MAX (27);
#   2b. a development key made on the GPU and on the CPU from one seed at
#      2^SETUP_LOG (default 20): the two files must be the same byte for
#      byte (zkp setup --backend cuda against --backend cpu);
#   3. compute-sanitizer memcheck and racecheck on a 2^16 MSM and NTT, where
#      the machine has compute-sanitizer;
#   4. whole verified proofs (zkpd-bench prove --synth): 2^20 against the
#      CPU backend, 2^PROVE_LOG (24) on the GPU, and 2^27 when the estimate
#      made from the 2^PROVE_LOG run fits what is left (else a message);
#   5. four proofs through zkpd on the GPU (gpus.devices = auto), each
#      job's spans adding up to its total and its device busy time given;
#   6. hardware counters where ncu can read them (two runs: counters, then
#      where the warps stall, by reason, with the pipes' use): k_group's shared-memory
#      wavefronts per 128-bit access against the ideal (bank conflicts),
#      registers and occupancy of k_group and k_acc_chunk;
#   7. NTT timings at 2^20..2^NTT_MAX with zkpd-gpu-bench (run right after
#      step 2's G1 MSM timings, so that the budget's skips fall on later
#      steps), then the witness's upload whole against packed at
#      2^24..2^27, the unpacked vectors checked;
# and prints a summary table last, also written to summary.txt.
#
# Time: the whole script finishes within TOTAL_S (default 480 s, 8
# minutes) on one H200. Each step has an estimate (in the comments beside
# it, for an H200 with 16 cores; anchor: a G1 MSM of 2^26 in about 0.6 s)
# and a cap; a step runs only if its estimate fits what is left of TOTAL_S
# less a 30 s margin for the table, under `timeout` at the smaller of its
# cap and what is left, and is otherwise skipped with a message and a
# "skipped" row. The build is not budgeted (up to 10 minutes on a slow
# machine): on a lent machine use --kit.
#
# Usage: bench/gpu-check.sh [BUILD_DIR]   (default: build-gpu next to bench/)
#        bench/gpu-check.sh --kit KIT_DIR  programs built elsewhere by
#                                          bench/gpu-kit.sh: nothing is built,
#                                          for a GPU machine without zkpd's
#                                          Debian libraries
# Environment: JOBS (build parallelism, default: all cores), TOTAL_S,
#              MSM_MAX / NTT_MAX (largest log2 size, 16..28, default 27 / 27),
#              G2_MAX (the G2 MSM's, 16..26, default 24),
#              VARIANT_LOG (the size the kit's variant builds are timed at
#              against the default, 16..28, default 25),
#              SETUP_LOG (the key compared across backends, 14..24, default 20),
#              PROVE_LOG (the GPU-only proof's domain, default 24),
#              DAEMON_LOG (the daemon smoke test's domain, default 18),
#              SEED (the checks' seed, default: fresh, printed),
#              GPU_CHECK_OUT (where logs and JSON go; default $OUT when set,
#              so that a lent machine's logs come back with its results, else
#              BUILD_DIR, or /tmp/gpu-check with --kit: eight files, no
#              subfolders).
set -euo pipefail

usage() {
	echo "usage: bench/gpu-check.sh [BUILD_DIR] | --kit KIT_DIR | --help" >&2
}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=
case "${1:-}" in
--help | -h)
	usage
	exit 0
	;;
--kit)
	[ $# -eq 2 ] || { usage; exit 2; }
	[ -d "$2" ] || { echo "gpu-check: no kit directory $2" >&2; exit 2; }
	;;
-*)
	usage
	exit 2
	;;
*)
	[ $# -le 1 ] || { usage; exit 2; }
	;;
esac
for v in TOTAL_S MSM_MAX NTT_MAX G2_MAX SETUP_LOG PROVE_LOG DAEMON_LOG VARIANT_LOG JOBS SEED; do
	val=${!v:-}
	if [ -n "$val" ] && ! [[ $val =~ ^[0-9]+$ ]]; then
		echo "gpu-check: $v must be a whole number, not '$val'" >&2
		exit 2
	fi
done
for v in MSM_MAX NTT_MAX VARIANT_LOG; do
	val=${!v:-27}
	if [ "$val" -lt 16 ] || [ "$val" -gt 28 ]; then
		echo "gpu-check: $v must be within 16..28, not $val" >&2
		exit 2
	fi
done
g2_max=${G2_MAX:-24}
if [ "$g2_max" -lt 16 ] || [ "$g2_max" -gt 26 ]; then
	echo "gpu-check: G2_MAX must be within 16..26, not $g2_max" >&2
	exit 2
fi
setup_log=${SETUP_LOG:-20}
if [ "$setup_log" -lt 14 ] || [ "$setup_log" -gt 24 ]; then
	echo "gpu-check: SETUP_LOG must be within 14..24, not $setup_log" >&2
	exit 2
fi
if [ "${1:-}" = "--kit" ]; then
	kit=$(cd "$2" && pwd)
	build=
	outdir=${GPU_CHECK_OUT:-${OUT:-/tmp/gpu-check}}
	bin=$kit/bin
	export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	math=$bin/test_cuda_math
	fieldtest=$bin/test_gpu_field
	gputest=$bin/test_gpu_backend
	gpubench=$bin/zkpd-gpu-bench
	bench=$bin/zkpd-bench
	zkp=$bin/zkp
	zkpd=$bin/zkpd
	zkpctl=$bin/zkpctl
else
	build=${1:-$root/build-gpu}
	outdir=${GPU_CHECK_OUT:-${OUT:-$build}}
	math=$build/tests/unit/cuda/test_cuda_math
	fieldtest=$build/tests/gpu/test_gpu_field
	gputest=$build/tests/gpu/test_gpu_backend
	gpubench=$build/bench/zkpd-gpu-bench
	bench=$build/bench/zkpd-bench
	zkp=$build/src/tools/zkp
	zkpd=$build/src/daemon/zkpd
	zkpctl=$build/src/daemon/zkpctl
fi
jobs=${JOBS:-$(nproc)}
msm_max=${MSM_MAX:-27}
variant_log=${VARIANT_LOG:-25}
ntt_max=${NTT_MAX:-27}
total_s=${TOTAL_S:-480}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
mkdir -p "$outdir"
log=$outdir/gpu-check.log
checks_json=$outdir/gpu-check.json
summary=$outdir/summary.txt
tmp=$(mktemp -d /tmp/gpu-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
margin=30 # for the table at the end

row_width=36
# shellcheck source=bench/lib-budget.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib-budget.sh"

if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
fi

if [ -z "$kit" ]; then
	step "configure"
	gen=()
	command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
	# No -Werror and no jemalloc here: a lent machine's compiler and
	# packages may differ from CI's, and this script measures rather than
	# lints.
	timeout 180 cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
		-DZKPD_CUDA=ON -DZKPD_JEMALLOC=OFF >/dev/null

	step "build"
	timeout 600 cmake --build "$build" -j "$jobs" --target test_gpu_backend test_gpu_field \
		test_cuda_math zkpd-gpu-bench zkpd-bench zkpd zkpctl zkp
fi

: >"$log"
: >"$checks_json"
status=0
echo "gpu-check: seed $seed (SEED=$seed replays the checks), budget $total_s s"

step "host math test" # about 10 s
if timeout -k 5 "$(cap 120)" "$math" >>"$log" 2>&1; then
	row "host math test" ok ""
else
	echo "test_cuda_math FAILED (see $log)"
	row "host math test" FAILED "see gpu-check.log"
	status=1
fi

step "gpu field arithmetic (carry-flag PTX against its host emulation)"
rc=0
# a few seconds
timeout -k 5 "$(cap 60)" "$fieldtest" >>"$log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
	row "gpu field arithmetic" ok ""
elif [ "$rc" -eq 77 ]; then
	echo "gpu field test was SKIPPED: no CUDA device seen"
	row "gpu field arithmetic" FAILED "no CUDA device seen"
	status=1
else
	echo "test_gpu_field FAILED (exit $rc, see $log)"
	row "gpu field arithmetic" FAILED "exit $rc"
	status=1
fi

step "gpu tests (every kernel against the CPU backend)"
rc=0
# about 30 s
timeout -k 5 "$(cap 240)" "$gputest" >>"$log" 2>&1 || rc=$?
if [ "$rc" -eq 77 ]; then
	echo "gpu tests were SKIPPED: no CUDA device seen"
	row "gpu tests" FAILED "no CUDA device seen"
	status=1
elif [ "$rc" -ne 0 ]; then
	echo "test_gpu_backend FAILED (exit $rc, see $log)"
	row "gpu tests" FAILED "exit $rc"
	status=1
else
	row "gpu tests" ok ""
fi

# check NAME EST CAP -- zkpd-bench check ARGS...: one checked run, its
# JSON lines appended to gpu-check.json, a row from its summary line.
# check_bin, when set, names another zkpd-bench (a variant build) and
# check_tag a "variant" key put first in each of its JSON lines.
check() {
	local name=$1 est=$2 c=$3 rc=0 t0=$SECONDS
	shift 4
	fits "$name" "$est" || return 0
	step "$name"
	timeout -k 5 "$(cap "$c")" "${check_bin:-$bench}" check "$@" --seed "$seed" \
		>"$tmp/check.json" 2>>"$log" || rc=$?
	if [ -n "${check_tag:-}" ]; then
		sed "s/^{/{\"variant\":\"$check_tag\",/" "$tmp/check.json" >>"$checks_json"
	else
		cat "$tmp/check.json" >>"$checks_json"
	fi
	local sum n f
	sum=$(grep '"check":"summary"' "$tmp/check.json" || true)
	n=$(printf '%s' "$sum" | sed -n 's/.*"checks":\([0-9]*\).*/\1/p')
	f=$(printf '%s' "$sum" | sed -n 's/.*"failed":\([0-9]*\).*/\1/p')
	if [ "$rc" -eq 0 ]; then
		row "$name" ok "$n checks, $((SECONDS - t0)) s"
		return 0
	fi
	status=1
	grep MISMATCH "$log" | tail -n 5 || true
	if [ "$rc" -eq 77 ]; then
		row "$name" FAILED "no CUDA device seen"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		row "$name" FAILED "timed out after $((SECONDS - t0)) s ($(grep -c '"ok":true' \
			"$tmp/check.json") checks passed before)"
	elif [ -n "$f" ]; then
		row "$name" FAILED "$f of $n checks failed (exit $rc)"
	else
		row "$name" FAILED "exit $rc, see gpu-check.log"
	fi
}

# Results at scale. Estimates on an H200 with 16 host cores: bases
# 2^27 x 96 B = 12.9 GB made in about 8 s and copied to the device in
# about 5 s; scalars 4.3 GB filled and uploaded in about 3 s; the MSMs
# 3 x (2^16 + ... + 2^27) points, about 2 x 3 x 1.2 s at the target speed;
# the checks' weights about 0.1 s a run at 2^27.
check "msm g1 2^16..2^$msm_max checked" 40 150 -- msm --backend cuda \
	--log2 "16..$msm_max" --runs 3 --scalars random --phases
# NTT timings with zkpd-gpu-bench, right after the G1 MSM's so that a
# short budget's skips fall on the steps after them (both are targets;
# test_gpu_backend has checked the transforms, the spot checks at scale
# come below): at most 40 s of what is left; the program predicts each size
# from the one below and skips those that would overrun ("skipped": "time
# budget" lines). About 25 s for 2^20..2^27. Then the witness's way to
# the device, whole against packed (zkpd/bitpack.h), at 2^24..2^27 on a
# PoRep mix, each packed result compared with its input: about 10 s.
json=$outdir/gpu-bench.json
table=$outdir/gpu-bench.table
: >"$table"
budget=$(($(left) - 15))
[ "$budget" -gt 50 ] && budget=50
if fits "ntt timing" 35; then
	step "ntt and witness upload timing (budget $budget s)"
	rc=0
	timeout -k 5 "$(cap $((budget + 15)))" "$gpubench" --budget "$budget" \
		ntt 20 "$ntt_max" witness 24 27 2>"$table" >"$json" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "zkpd-gpu-bench FAILED (exit $rc, partial results kept)"
		row "ntt timing" FAILED "$([ "$rc" -eq 77 ] && echo "no CUDA device seen" || echo "exit $rc")"
		status=1
	else
		row "ntt timing" ok "$(grep -c '"fwd_median_ms"' "$json") sizes timed"
		row "witness up packed" ok "$(grep -c '"op":"witness_up"' "$json") sizes checked"
	fi
fi

# The kit's variant builds (bench/gpu-kit.sh, variants.txt: the CIOS
# form of Fp's products, the point kernels held to 3 blocks an SM) against
# the default build on the same machine in the same run: a G1 MSM of
# 2^VARIANT_LOG (default 25: one window pass, as at 2^26 and 2^27 the
# additions are what differ) random scalars, 3 checked runs a binary, in
# the order default, each variant, default again (the two default runs
# show the drift between them); the summary gives each variant's median
# over the mean of the default's. Each binary makes its bases anew:
# about 2 s at 2^25, 1 s to upload, 3 MSMs of about 0.35 s: 7 s each.
variants=()
if [ -n "$kit" ] && [ -s "$kit/variants.txt" ]; then
	while read -r name _; do
		[ -x "$bin/zkpd-bench.$name" ] && variants+=("$name")
	done <"$kit/variants.txt"
fi
if [ ${#variants[@]} -eq 0 ]; then
	row "msm g1 variants 2^$variant_log" skipped "no variant builds (bench/gpu-kit.sh)"
else
	for v in default "${variants[@]}" default; do
		if [ "$v" = default ]; then
			check_bin=$bench
		else
			check_bin=$bin/zkpd-bench.$v
		fi
		check_tag=$v check "msm g1 2^$variant_log build $v" 7 60 -- msm --backend cuda \
			--log2 "$variant_log..$variant_log" --runs 3 --scalars random --phases
	done
	check_bin=
fi
# 6 kinds x 9 sizes up to 2^24: bases 1 s, MSMs well under 1 s each.
check "msm g1 skewed scalars 2^16..2^24" 20 90 -- msm --backend cuda --log2 16..24 \
	--scalars all
# The window width's trade on the device: 2^24, 2^26 and 2^MSM_MAX (27)
# random scalars at widths 14..20, 16..22 and 20, 22 (the default picks 18, 20
# and 20; 22 bits make 12 windows where 20 and 21 make 13), every result
# checked; the summary lists each width's median. Bases 2^26 in about 4 s,
# 7 MSMs of up to 0.8 s, 3 runs each; 2^27 bases in about 13 s with the
# upload, 2 x 3 MSMs of about 1.4 s: about 100 s for the three.
check "msm g1 window sweep 2^24" 35 120 -- msm --backend cuda --log2 24..24 \
	--runs 3 --scalars random --window 14,15,16,17,18,19,20
check "msm g1 window sweep 2^26" 35 120 -- msm --backend cuda --log2 26..26 \
	--runs 3 --scalars random --window 16,17,18,19,20,21,22
check "msm g1 window sweep 2^$msm_max" 30 120 -- msm --backend cuda --log2 "$msm_max..$msm_max" \
	--runs 3 --scalars random --window 20,22
# What the window passes cost: 2^26 random scalars in the default passes (7
# windows each, within MSM_PASS_BYTES) against all 13 windows in one pass
# (6.4 GB of lists, buckets and chunk sums), 3 runs each: about 10 s.
check "msm g1 pass sweep 2^26" 10 60 -- msm --backend cuda --log2 26..26 \
	--runs 3 --scalars random --pass-windows 0,13
# G2 on the device, random and 0/1 scalars: bases (i + 1) Q made on the
# host, about 4 s at 2^24 on 16 cores; the MSMs, each run checked, about
# three times G1's (a G2 addition is three Fp2-sized ones).
check "msm g2 2^16..2^$g2_max checked" 45 150 -- msm --backend cuda --group g2 \
	--log2 "16..$g2_max" --runs 3 --scalars random,01 --phases
# NTT spots: at 2^27 each transform moves 4.3 GB each way and 4 spots
# cost about 1.3 s on 16 cores: about 25 s for the four; below, 5 s.
check "ntt spots 2^16..2^24" 10 60 -- ntt --backend cuda --log2 16..24 --spots 8
check "ntt spots 2^16..2^20 snarkjs" 5 60 -- ntt --backend cuda --log2 16..20 --spots 8 \
	--roots snarkjs
check "ntt spots 2^$ntt_max" 30 120 -- ntt --backend cuda --log2 "$ntt_max..$ntt_max" \
	--spots 4

# A development key on the GPU and on the CPU from one seed: the same
# file byte for byte (zkp setup --cache-only writes one standalone key,
# whose header holds no path or time). At 2^20 about 5 s for the circuit,
# 10 s on the CPU's 16 cores and 3 s on the GPU.
if fits "setup gpu = cpu 2^$setup_log" 30; then
	step "setup gpu = cpu 2^$setup_log"
	sd=$(mktemp -d /tmp/gpu-check-setup.XXXXXX)
	t0=$SECONDS
	ok=0
	cpu_s='' gpu_s=''
	if timeout -k 5 "$(cap 60)" "$zkp" synth --shape porep \
		--constraints $(((1 << setup_log) - 64)) -o "$sd/c.pce" >>"$log" 2>&1; then
		t1=$SECONDS
		if timeout -k 5 "$(cap 120)" "$zkp" setup "$sd/c.pce" -o "$sd/gpu" --seed 5 \
			--backend cuda --cache-only >>"$log" 2>&1; then
			gpu_s=$((SECONDS - t1))
			t1=$SECONDS
			if timeout -k 5 "$(cap 120)" "$zkp" setup "$sd/c.pce" -o "$sd/cpu" --seed 5 \
				--backend cpu --cache-only >>"$log" 2>&1; then
				cpu_s=$((SECONDS - t1))
				cmp "$sd/gpu.INSECURE-DEV.zkpc" "$sd/cpu.INSECURE-DEV.zkpc" >>"$log" 2>&1 &&
					cmp "$sd/gpu.INSECURE-DEV.vk" "$sd/cpu.INSECURE-DEV.vk" >>"$log" 2>&1 &&
					ok=1
			fi
		fi
	fi
	rm -rf "$sd"
	if [ "$ok" -eq 1 ]; then
		row "setup gpu = cpu 2^$setup_log" ok "identical; gpu ${gpu_s} s, cpu ${cpu_s} s"
	else
		status=1
		row "setup gpu = cpu 2^$setup_log" FAILED \
			"after $((SECONDS - t0)) s (gpu ${gpu_s:-failed}, cpu ${cpu_s:-not run}); see log"
	fi
fi

# compute-sanitizer where the image has it: a 2^16 MSM and NTT under
# memcheck and racecheck, and the G2 MSM under memcheck (about 10-50
# times slower: 5-15 s each).
if command -v compute-sanitizer >/dev/null 2>&1; then
	for tool in memcheck racecheck; do
		for what in "msm --log2 16" "ntt --log2 16 --spots 4" "msm --group g2 --log2 14"; do
			[ "$tool" = racecheck ] && [ "${what#*g2}" != "$what" ] && continue
			name="sanitizer $tool ${what%% *}$([ "${what#*g2}" != "$what" ] && echo " g2 2^14" || echo " 2^16")"
			fits "$name" 15 || continue
			step "$name"
			rc=0
			# shellcheck disable=SC2086
			timeout -k 5 "$(cap 60)" compute-sanitizer --tool "$tool" --error-exitcode 3 \
				"$bench" check $what --backend cuda --seed "$seed" >"$tmp/san.log" 2>&1 ||
				rc=$?
			cat "$tmp/san.log" >>"$log"
			said=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$tmp/san.log" | tail -n 1 |
				sed 's/^=* *//')
			if [ "$rc" -eq 0 ]; then
				row "$name" ok "$said"
			else
				status=1
				row "$name" FAILED "exit $rc: $said"
			fi
		done
	done
else
	echo "compute-sanitizer: not on this machine, skipped"
	row "compute-sanitizer" skipped "not installed here"
fi

# Whole proofs, each verified before it counts. A PoRep-shaped proof on the
# GPU against the CPU backend at 2^20 (the ratio; about 30 s with the
# development key), then on the GPU alone at 2^PROVE_LOG (default 24; the
# INSECURE development key is made in memory first, about a minute on 16
# cores: about 90 s in all), then 2^27 if it fits: its estimate is the
# 2^PROVE_LOG step's wall time times 2^(27 - PROVE_LOG) (the key's setup,
# which dominates, and the proof both grow about linearly with the domain).
prove_json=$outdir/gpu-prove.json
: >"$prove_json"
prove_log=${PROVE_LOG:-24}
big_s=0
# prove NAME EST CAP ARGS: one zkpd-bench prove run; sets last_s.
prove() {
	local name=$1 est=$2 c=$3 t0=$SECONDS rc=0
	last_s=0
	fits "$name" "$est" || return 1
	step "$name"
	# shellcheck disable=SC2086
	timeout -k 5 "$(cap "$c")" "$bench" prove $4 --runs 3 --threads "$(nproc)" \
		>>"$prove_json" 2>>"$log" || rc=$?
	last_s=$((SECONDS - t0))
	if [ "$rc" -ne 0 ]; then
		echo "zkpd-bench prove $4 FAILED (exit $rc, see $log)"
		row "$name" FAILED "exit $rc after $last_s s"
		status=1
		return 1
	fi
	row "$name" ok "$last_s s (3 proofs and the key, verified)"
}
prove "proof 2^20 gpu and cpu" 30 240 "--synth 20 --backends cuda,cpu" || true
if prove "proof 2^$prove_log gpu" 90 240 "--synth $prove_log --backends cuda"; then
	big_s=$last_s
fi
if [ "$prove_log" -lt 27 ]; then
	if [ "$big_s" -gt 0 ]; then
		est27=$((big_s << (27 - prove_log)))
		prove "proof 2^27 gpu" "$est27" "$est27" "--synth 27 --backends cuda" || true
	else
		echo "proof 2^27: SKIPPED: no 2^$prove_log run to size it from"
		row "proof 2^27 gpu" skipped "no 2^$prove_log run to estimate from"
	fi
fi
prove_rows=$(python3 - "$prove_json" <<'EOF' 2>/dev/null || true
import json, sys
text = open(sys.argv[1]).read()
dec, i = json.JSONDecoder(), 0
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    o, i = dec.raw_decode(text, i)
    for b in [o] + o.get("compare", []):
        m = b["median_ms"]
        print("prove %-8s 2^%-3d %5d runs: proof %9.1f ms (eval %.1f, ntt %.1f, G1 MSMs %.1f, "
              "G2 %.1f, key resident %.0f ms)%s" % (b["backend"], o["domain_log2"], o["runs"],
              m["prove"], m["eval"], m["ntt"], m["g1_msms"], m["msm_b_g2"], b["resident_ms"],
              "  cpu/gpu %.1fx" % (1 / b["prove_ratio"]) if "prove_ratio" in b else ""))
EOF
)
echo "$prove_rows"

daemon_row="zkpd: not run"
# About 40 s: circuit and key 15 s, daemon start and four proofs 20 s.
if fits "zkpd on the GPU" 40; then
step "zkpd on the GPU (4 concurrent proofs through the daemon, each verified)"
# The daemon's device path on the real device: gpus.devices = auto must
# find the GPU, the key's G1 queries go resident there, and every proof
# must verify with the circuit's vk; each job's spans must add up to its
# total within 5 % (zkpctl's "spans S s of T s" line) and its summary line
# must give the GPU's busy seconds for it. A 2^DAEMON_LOG PoRep-shaped
# circuit (default 18) with an INSECURE development key.
dlog=${DAEMON_LOG:-18}
dd=$(mktemp -d /tmp/zkpd-gpu-check.XXXXXX)
valid=0
on_gpu=0
spans_ok=0
busy_jobs=0
if timeout -k 5 "$(cap 120)" "$zkp" synth --shape porep --constraints $(((1 << dlog) - 64)) \
	-o "$dd/c.pce" --witness "$dd/c.wtns" >>"$log" 2>&1 &&
	timeout -k 5 "$(cap 180)" "$zkp" setup "$dd/c.pce" -o "$dd/c" >>"$log" 2>&1; then
	cat >"$dd/zkpd.conf" <<CONF
# INSECURE development key: GPU check only
[server]
listen = unix:$dd/zkpd.sock
[gpus]
devices = auto
[circuit.c]
pce = $dd/c.pce
key = $dd/c.INSECURE-DEV.params
key_format = bellman
preload = true
CONF
	dcap=$(cap 300)
	timeout -k 5 "$dcap" "$zkpd" --config "$dd/zkpd.conf" 2>"$outdir/zkpd.log" &
	zpid=$!
	up=0
	for _ in $(seq 600); do
		kill -0 "$zpid" 2>/dev/null || break
		if "$zkpctl" --connect "unix:$dd/zkpd.sock" --timeout 2 status 2>/dev/null |
			grep -q '^c  *yes'; then
			up=1
			break
		fi
		sleep 0.2
	done
	valid=0
	if [ "$up" -eq 1 ]; then
		ps=()
		for i in 1 2 3 4; do
			timeout -k 5 "$dcap" "$zkpctl" --connect "unix:$dd/zkpd.sock" --timeout "$dcap" prove c "$dd/c.wtns" \
				--out "$dd/p$i.bin" --public-json "$dd/p$i.json" >"$dd/o$i.txt" 2>&1 &
			ps+=($!)
		done
		for i in 1 2 3 4; do
			if wait "${ps[$((i - 1))]}" && timeout -k 5 "$(cap 60)" "$zkp" verify --vk "$dd/c.INSECURE-DEV.vk" \
				--proof "$dd/p$i.bin" --public "$dd/p$i.json" 2>/dev/null | grep -qx valid; then
				valid=$((valid + 1))
			fi
			cat "$dd/o$i.txt" >>"$log"
			if sed -n 's/^  spans \([0-9.]*\) s of \([0-9.]*\) s .*/\1 \2/p' "$dd/o$i.txt" |
				awk '{ ok = $2 > 0 && $1 >= 0.95 * $2 && $1 <= 1.05 * $2 } END { exit !(NR == 1 && ok) }'; then
				spans_ok=$((spans_ok + 1))
			fi
		done
		timeout -k 5 "$(cap 20)" "$zkpctl" --connect "unix:$dd/zkpd.sock" status >"$outdir/zkpd-status.txt" \
			2>&1 || true
	fi
	kill -TERM "$zpid" 2>/dev/null || true
	wait "$zpid" 2>/dev/null || true
	on_gpu=$(grep -c "done: circuit c .* device cuda:" "$outdir/zkpd.log" || true)
	busy_jobs=$(grep -c "done: circuit c .* device cuda:.* | device busy [0-9.]* s" "$outdir/zkpd.log" ||
		true)
	daemon_row="zkpd 2^$dlog: $valid of 4 proofs valid, $on_gpu on a GPU, spans adding up for"
	daemon_row+=" $spans_ok, device busy time for $busy_jobs (status in zkpd-status.txt)"
	if [ "$valid" -ne 4 ] || [ "$on_gpu" -ne 4 ] || [ "$spans_ok" -ne 4 ] || [ "$busy_jobs" -ne 4 ]; then
		status=1
		tail -n 20 "$outdir/zkpd.log"
	fi
else
	daemon_row="zkpd: the circuit or key could not be made (see $log)"
	status=1
fi
rm -rf "$dd"
echo "$daemon_row"
row "zkpd on the GPU" "$([ "$valid" -eq 4 ] && [ "$on_gpu" -eq 4 ] && [ "$spans_ok" -eq 4 ] &&
	[ "$busy_jobs" -eq 4 ] && echo ok || echo FAILED)" \
	"$valid of 4 proofs valid, $on_gpu on a GPU, spans adding up $spans_ok, busy time $busy_jobs"
fi

# Hardware counters (docs/benchmarks.md, "The NTT's shared-memory layout"):
# the first 4 k_group launches of a 2^22 NTT check and the first 2
# k_acc_chunk launches of a 2^20 MSM under ncu, which replays each a few
# times. k_group's shared accesses are all 128-bit, whose ideal is one
# wavefront per quarter warp, 4 per warp instruction: the row gives
# wavefronts / (4 instructions), 1.00 without conflicts (the plain layout
# would read about 2). The clocks are left as they are. About 20 s, mostly
# ncu starting; where ncu cannot read the counters (some sandboxes) the
# step is skipped, not failed.
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null |
	head -n 1 || true)
ncu_metrics=launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
ncu_metrics+=,gpu__time_duration.sum,smsp__sass_inst_executed_op_shared_ld.sum
ncu_metrics+=,smsp__sass_inst_executed_op_shared_st.sum
ncu_metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
ncu_metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
ncu_metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
ncu_metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
# Where the same launches' warps wait, in a second ncu run so that a
# metric this ncu lacks costs only its row: the share of issue slots
# used, eligible warps a cycle, the active cycles of the FMA pipes (the
# integer multiply-adds run there) and of the ALU, and the warps stalled
# per issued instruction by reason (ncu's warp state statistics), the
# largest four in the row: whether k_group waits on its barriers or its
# shared memory and k_acc_chunk on its bases' reads or the multiply pipe
# decides what to change next. About 20 s.
ncu_stalls=smsp__issue_active.avg.pct_of_peak_sustained_active
ncu_stalls+=,smsp__warps_eligible.avg.per_cycle_active
ncu_stalls+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
ncu_stalls+=,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active
ncu_stalls+=,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
for why in barrier long_scoreboard short_scoreboard math_pipe_throttle mio_throttle wait \
	not_selected dispatch_stall lg_throttle no_instruction branch_resolving; do
	ncu_stalls+=,smsp__average_warps_issue_stalled_${why}_per_issue_active.ratio
done
# ncu_kernels METRICS: both kernels' launches under ncu, their CSV rows
# into $tmp/ncu.csv; sets rc to the last failure's exit code.
ncu_kernels() {
	rc=0
	: >"$tmp/ncu.csv"
	for what in "k_group ntt --log2 22..22 --spots 2" "k_acc_chunk msm --log2 20..20"; do
		kernel=${what%% *}
		count=$([ "$kernel" = k_group ] && echo 4 || echo 2)
		# shellcheck disable=SC2086
		timeout -k 5 "$(cap 45)" "$ncu" --clock-control none --csv --print-units base \
			--kernel-name "regex:$kernel" --launch-count "$count" --metrics "$1" \
			"$bench" check ${what#* } --backend cuda --seed "$seed" \
			>"$tmp/ncu.out" 2>&1 || rc=$?
		cat "$tmp/ncu.out" >>"$log"
		grep '^"' "$tmp/ncu.out" >>"$tmp/ncu.csv" || true
	done
}
# ncu_said MODE: the row's text from $tmp/ncu.csv (counters or stalls),
# empty when no metric of the mode was read.
ncu_said() {
	python3 - "$tmp/ncu.csv" "$1" 2>>"$log" <<'PY' || true
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
mode = sys.argv[2]
head = next((r for r in rows if "Metric Name" in r), None)
if head is None:
    sys.exit(0)
ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
per = {}
for r in rows:
    if r is head or r == head or len(r) <= vi:
        continue
    try:
        v = float(r[vi].replace(",", ""))
    except ValueError:
        continue
    k = "k_group" if "k_group" in r[ki] else "k_acc_chunk" if "k_acc_chunk" in r[ki] else None
    if k:
        per.setdefault(k, {}).setdefault(r[mi], []).append(v)
out = []
stall = "smsp__average_warps_issue_stalled_"
for k in ("k_group", "k_acc_chunk"):
    m = per.get(k)
    if not m:
        continue
    tot = lambda n: sum(m.get(n, [0]))
    avg = lambda n: sum(m.get(n, [0])) / max(1, len(m.get(n, [0])))
    if mode == "stalls":
        waits = sorted(((avg(n), n[len(stall):-len("_per_issue_active.ratio")]) for n in m
                        if n.startswith(stall)), reverse=True)
        if not waits and "smsp__issue_active.avg.pct_of_peak_sustained_active" not in m:
            continue
        s = "%s issue %.0f%% busy, %.2f eligible, fma %.0f%% heavy %.0f%% alu %.0f%%" % (
            k, avg("smsp__issue_active.avg.pct_of_peak_sustained_active"),
            avg("smsp__warps_eligible.avg.per_cycle_active"),
            avg("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
            avg("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"),
            avg("sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"))
        if waits:
            s += ", stalled a issue: " + " ".join("%s %.2f" % (n, v) for v, n in waits[:4])
        out.append(s)
        continue
    if "launch__registers_per_thread" not in m:
        continue
    s = "%s %d regs, %.0f%% warps active" % (k, avg("launch__registers_per_thread"),
                                           avg("sm__warps_active.avg.pct_of_peak_sustained_active"))
    for op in ("ld", "st"):
        inst = tot("smsp__sass_inst_executed_op_shared_" + op + ".sum")
        if inst:
            s += ", shared %s %.2f of ideal (%d conflicts)" % (
                op, tot("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum") / (4 * inst),
                tot("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum"))
    out.append(s)
print("; ".join(out))
PY
}
for mode in counters stalls; do
	if [ -z "$ncu" ]; then
		row "ncu $mode" skipped "ncu not installed here"
	elif fits "ncu $mode" 20; then
		step "ncu $mode"
		if [ "$mode" = counters ]; then
			ncu_kernels "$ncu_metrics"
		else
			ncu_kernels "$ncu_stalls"
		fi
		said=$(ncu_said "$mode")
		if [ -n "$said" ]; then
			row "ncu $mode" ok "$said"
		else
			why=$(grep -m 1 -E "ERR|rror" "$tmp/ncu.out" | cut -c 1-80)
			row "ncu $mode" skipped "no counters read (exit $rc${why:+: $why})"
		fi
	fi
done

step "done"
{
	echo "== gpu-check summary (seed $seed, $((SECONDS - start)) s of a $total_s s budget)"
	printf '%-36s %-8s %s\n' step result detail
	printf '%s\n' "${rows[@]}"
	python3 - "$checks_json" <<'EOF' 2>/dev/null || true
import json, sys
builds = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("check") == "msm" and o["scalars"] == "random" and o["log_n"] >= 24:
        v = o.get("variant")
        if v:
            builds.setdefault(v, []).append((o["median_ms"],
                                            (o.get("phases_median_ms") or {}).get("accumulate", 0)))
        print("msm %s 2^%d%s%s%s: median %.1f ms, min %.1f ms (%d runs, %s)" % (o["group"],
              o["log_n"], " build %s" % v if v else "",
              " window %d" % o["window"] if o.get("window") else "",
              " %d windows a pass" % o["pass_windows"] if o.get("pass_windows") else "",
              o["median_ms"], o["min_ms"], o["runs"], "checked" if o["ok"] else "WRONG"))
        p = o.get("phases_median_ms")
        if p:
            print("  phases (ms, %d passes): prepare %.1f, sort %.1f, accumulate %.1f, "
                  "scan %.1f, reduce %.1f" % (o["passes"], p["prepare"], p["sort"],
                                              p["accumulate"], p["scan"], p["reduce"]))
ref = builds.pop("default", [])
if ref and builds:
    mean = sum(r[0] for r in ref) / len(ref)
    acc = sum(r[1] for r in ref) / len(ref)
    print("builds against the default (mean of its %d medians, %.1f ms; %s): %s" % (
          len(ref), mean, "drift %+.1f %%" % (100 * (ref[-1][0] / ref[0][0] - 1)) if len(ref) > 1
          else "one run", ", ".join("%s %.3f (accumulation %s)" % (
              v, m[0][0] / mean, "%.3f" % (m[0][1] / acc) if acc > 0 else "untimed")
              for v, m in builds.items())))
EOF
	grep -v '^zkpd-gpu-bench:' "$table" || true
	[ -n "$prove_rows" ] && echo "$prove_rows"
	echo "$daemon_row"
	if [ "$status" -eq 0 ]; then
		echo "gpu-check: all checks passed in $((SECONDS - start)) s"
	else
		echo "gpu-check: FAILURES (see above and $log), $((SECONDS - start)) s"
	fi
} | tee "$summary"
exit "$status"
