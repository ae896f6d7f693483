#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU (docs/benchmarks.md,
# "bench/gpu-check.sh"):
# builds with the CUDA backend into build-gpu, runs the host math test and
# the gpu tests (every kernel against the CPU backend), times whole
# verified proofs of a PoRep-shaped circuit (2^20 against the CPU backend,
# 2^24 on the GPU) with zkpd-bench prove, four proofs through zkpd on the
# GPU (gpus.devices = auto), then the G1 MSM at 2^20..2^26
# (random and witness-like scalars) and the NTT at 2^20..2^27 with
# zkpd-gpu-bench (medians of 3-5 runs), and prints the JSON lines, then a
# table last.
#
# Time: the whole script is meant to finish within 8 minutes on one H200.
# The timing step gets what is left of TOTAL_S (default 480) after the
# build and the tests, less a margin of 45 s; zkpd-gpu-bench skips sizes
# its prediction puts past that budget and says so ("skipped": "time
# budget" lines, "skipped" table rows).
#
# Usage: bench/gpu-check.sh [BUILD_DIR]   (default: build-gpu next to bench/)
#        bench/gpu-check.sh --kit KIT_DIR  programs built elsewhere by
#                                          bench/gpu-kit.sh: nothing is built,
#                                          for a GPU machine without zkpd's
#                                          Debian libraries
# Environment: JOBS (build parallelism, default: all cores), TOTAL_S,
#              MSM_MAX / NTT_MAX (largest log2 size, default 26 / 27),
#              PROVE_LOG (the GPU-only proof's domain, default 24),
#              DAEMON_LOG (the daemon smoke test's domain, default 18),
#              GPU_CHECK_OUT (where logs and JSON go; default $OUT when set,
#              so that a lent machine's logs come back with its results, else
#              BUILD_DIR, or /tmp/gpu-check with --kit: six files, no
#              subfolders).
# Every step runs under `timeout`, so a hung kernel or daemon fails its step
# and the script still prints its table.
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
for v in TOTAL_S MSM_MAX NTT_MAX PROVE_LOG DAEMON_LOG JOBS; do
	val=${!v:-}
	if [ -n "$val" ] && ! [[ $val =~ ^[0-9]+$ ]]; then
		echo "gpu-check: $v must be a whole number, not '$val'" >&2
		exit 2
	fi
done
if [ "${1:-}" = "--kit" ]; then
	kit=$(cd "$2" && pwd)
	build=
	outdir=${GPU_CHECK_OUT:-${OUT:-/tmp/gpu-check}}
	bin=$kit/bin
	export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	math=$bin/test_cuda_math
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
	gputest=$build/tests/gpu/test_gpu_backend
	gpubench=$build/bench/zkpd-gpu-bench
	bench=$build/bench/zkpd-bench
	zkp=$build/src/tools/zkp
	zkpd=$build/src/daemon/zkpd
	zkpctl=$build/src/daemon/zkpctl
fi
jobs=${JOBS:-$(nproc)}
msm_max=${MSM_MAX:-26}
ntt_max=${NTT_MAX:-27}
total_s=${TOTAL_S:-480}
mkdir -p "$outdir"
log=$outdir/gpu-check.log
start=$SECONDS

step() { printf '== %s (%ds)\n' "$*" $((SECONDS - start)); }

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
	timeout 600 cmake --build "$build" -j "$jobs" --target test_gpu_backend test_cuda_math \
		zkpd-gpu-bench zkpd-bench zkpd zkpctl zkp
fi

: >"$log"
status=0

step "host math test"
if ! timeout 120 "$math" 2>&1 | tee -a "$log"; then
	echo "test_cuda_math FAILED"
	status=1
fi

step "gpu tests (every kernel against the CPU backend)"
rc=0
timeout 240 "$gputest" 2>&1 | tee -a "$log" || rc=${PIPESTATUS[0]}
if [ "$rc" -eq 77 ]; then
	echo "gpu tests were SKIPPED: no CUDA device seen"
	status=1
elif [ "$rc" -ne 0 ]; then
	echo "test_gpu_backend FAILED (exit $rc)"
	status=1
fi

step "whole proofs (zkpd-bench prove --synth)"
# A PoRep-shaped proof on the GPU against the CPU backend at 2^20 (the
# ratio), then on the GPU alone at 2^PROVE_LOG (default 24; the INSECURE
# development key is made in memory first, about a minute on 16 cores).
# Each proof is verified before it counts.
prove_json=$outdir/gpu-prove.json
: >"$prove_json"
for args in "--synth 20 --backends cuda,cpu" "--synth ${PROVE_LOG:-24} --backends cuda"; do
	# shellcheck disable=SC2086
	if ! timeout 240 "$bench" prove $args --runs 3 \
		--threads "$(nproc)" >>"$prove_json" 2>>"$log"; then
		echo "zkpd-bench prove $args FAILED (see $log)"
		status=1
	fi
done
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

step "zkpd on the GPU (4 concurrent proofs through the daemon, each verified)"
# The daemon's device path on the real device: gpus.devices = auto must
# find the GPU, the key's G1 queries go resident there, and every proof
# must verify with the circuit's vk. A 2^DAEMON_LOG PoRep-shaped circuit
# (default 18) with an INSECURE development key.
dlog=${DAEMON_LOG:-18}
dd=$(mktemp -d /tmp/zkpd-gpu-check.XXXXXX)
daemon_row="zkpd: not run"
if timeout 120 "$zkp" synth --shape porep --constraints $(((1 << dlog) - 64)) \
	-o "$dd/c.pce" --witness "$dd/c.wtns" >>"$log" 2>&1 &&
	timeout 180 "$zkp" setup "$dd/c.pce" -o "$dd/c" >>"$log" 2>&1; then
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
	timeout 420 "$zkpd" --config "$dd/zkpd.conf" 2>"$outdir/zkpd.log" &
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
			timeout 320 "$zkpctl" --connect "unix:$dd/zkpd.sock" --timeout 300 prove c "$dd/c.wtns" \
				--out "$dd/p$i.bin" --public-json "$dd/p$i.json" >>"$log" 2>&1 &
			ps+=($!)
		done
		for i in 1 2 3 4; do
			if wait "${ps[$((i - 1))]}" && timeout 60 "$zkp" verify --vk "$dd/c.INSECURE-DEV.vk" \
				--proof "$dd/p$i.bin" --public "$dd/p$i.json" 2>/dev/null | grep -qx valid; then
				valid=$((valid + 1))
			fi
		done
		timeout 20 "$zkpctl" --connect "unix:$dd/zkpd.sock" status >"$outdir/zkpd-status.txt" \
			2>&1 || true
	fi
	kill -TERM "$zpid" 2>/dev/null || true
	wait "$zpid" 2>/dev/null || true
	on_gpu=$(grep -c "done: circuit c .* device cuda:" "$outdir/zkpd.log" || true)
	daemon_row="zkpd 2^$dlog: $valid of 4 proofs valid, $on_gpu on a GPU (status in zkpd-status.txt)"
	if [ "$valid" -ne 4 ] || [ "$on_gpu" -ne 4 ]; then
		status=1
		tail -n 20 "$outdir/zkpd.log"
	fi
else
	daemon_row="zkpd: the circuit or key could not be made (see $log)"
	status=1
fi
rm -rf "$dd"
echo "$daemon_row"

step "timing"
json=$outdir/gpu-bench.json
table=$outdir/gpu-bench.table
budget=$((total_s - (SECONDS - start) - 45))
if [ "$budget" -lt 30 ]; then
	budget=30
fi
echo "timing budget: ${budget} s"
if ! timeout $((budget + 60)) "$gpubench" --budget "$budget" \
	ntt 20 "$ntt_max" msm 20 "$msm_max" 2>"$table" | tee "$json"; then
	echo "zkpd-gpu-bench FAILED (partial results kept)"
	status=1
fi

step "done"
cat "$table"
[ -n "$prove_rows" ] && echo "$prove_rows"
echo "$daemon_row"
if [ "$status" -eq 0 ]; then
	echo "gpu-check: all checks passed in $((SECONDS - start)) s"
else
	echo "gpu-check: FAILURES (see above and $log), $((SECONDS - start)) s"
fi
exit "$status"
