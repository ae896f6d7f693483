#!/usr/bin/env bash
# The real job on a GPU machine (docs/benchmarks.md, "bench/gpu-porep.sh"):
# Filecoin PoRep C2 of one sector size, default 32 GiB (ten partitions of
# 130,278,869 rows, a 2^27 domain), end to end through zkpd, from a kit
# made by bench/gpu-kit.sh (the machine has the CUDA toolkit but not
# zkpd's Debian libraries, and no network). Each step runs under `timeout`
# inside one time budget:
#   1. the partition circuit (zkp porep circuit), while SECTORS sectors are
#      sealed sparsely beside it (zkp porep seal --sparse: DEVELOPMENT C1
#      outputs, not seals);
#   2. the INSECURE development key on the GPU (zkp setup --backend auto
#      --cache-only: one standalone .zkpc, no .params);
#   3. zkpd with gpus.devices = auto, the circuit and key preloaded;
#   4. one sector alone (zkpctl porep), then all SECTORS back to back
#      (submitted together, queued by the daemon);
#   5. every proof verified with zkp porep verify.
# nvidia-smi samples the GPU's utilisation and memory every 200 ms while
# zkpd runs. The summary table (also summary.txt) gives each step's time,
# the sector's wall time and each partition's stage times, the GPU's busy
# fraction (zkpd's kernel seconds over the proving wall time, and
# nvidia-smi's utilisation), peak host RSS (zkpd) and peak device memory,
# what zkpd planned to hold on each GPU (its device memory log line), and
# throughput in sectors per hour.
#
# Each step has an estimate (the table below, for an H200 with 16 host
# cores) and runs only if it fits what is left of TOTAL_S less a 20 s
# margin, else a "skipped" row; the back-to-back run is estimated from the
# single sector's measured time.
#
# Usage: bench/gpu-porep.sh --kit KIT_DIR [--sector-size 2KiB|8MiB|512MiB|32GiB|64GiB]
# Environment: TOTAL_S (default 540), SECTORS (3), EST_SCALE (a whole
# factor on every estimate and cap, for a machine slower than the H200's
# host: default 1), WORK (the circuit, key,
# C1 outputs and proofs; default /tmp/gpu-porep; about 52 GB at 32 GiB),
# GPU_POREP_OUT (at most 7 files: gpu-porep.log, summary.txt,
# gpu-porep.json, jobs.json, status.json, zkpd.log, smi.csv; default $OUT
# when set, else /tmp/gpu-porep-out), KEEP=1 keeps WORK.
# Exit 0 when every step that ran passed and every proof verified, 1
# otherwise, 2 for usage.
set -euo pipefail

usage() {
	echo "usage: bench/gpu-porep.sh --kit KIT_DIR [--sector-size SIZE]" >&2
}

kit='' size=32GiB
while [ $# -gt 0 ]; do
	case $1 in
	--kit)
		[ $# -ge 2 ] || { usage; exit 2; }
		kit=$2
		shift 2
		;;
	--sector-size)
		[ $# -ge 2 ] || { usage; exit 2; }
		size=$2
		shift 2
		;;
	--help | -h)
		usage
		exit 0
		;;
	*)
		usage
		exit 2
		;;
	esac
done
[ -n "$kit" ] || { usage; exit 2; }
[ -d "$kit/bin" ] || { echo "gpu-porep: no kit directory $kit (want $kit/bin)" >&2; exit 2; }
for v in TOTAL_S SECTORS EST_SCALE; do
	val=${!v:-}
	if [ -n "$val" ] && ! [[ $val =~ ^[0-9]+$ ]]; then
		echo "gpu-porep: $v must be a whole number, not '$val'" >&2
		exit 2
	fi
done
# Estimates in seconds: circuit, key, seal (all sectors at once), zkpd's
# start and load, one sector's proof.
case $size in
2KiB) bytes=2K est=(10 40 5 10 10) ;;
8MiB) bytes=8M est=(15 45 5 10 15) ;;
512MiB) bytes=512M est=(40 60 30 20 30) ;;
32GiB) bytes=32G est=(40 150 120 60 60) ;;
64GiB) bytes=64G est=(45 160 150 60 70) ;;
*)
	echo "gpu-porep: --sector-size is 2KiB, 8MiB, 512MiB, 32GiB or 64GiB, not '$size'" >&2
	exit 2
	;;
esac

scale=${EST_SCALE:-1}
[ "$scale" -ge 1 ] || { echo "gpu-porep: EST_SCALE must be at least 1" >&2; exit 2; }
for i in "${!est[@]}"; do
	est[i]=$((est[i] * scale))
done
kit=$(cd "$kit" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
zkp=$kit/bin/zkp
zkpd=$kit/bin/zkpd
zkpctl=$kit/bin/zkpctl
total_s=${TOTAL_S:-540}
sectors=${SECTORS:-3}
[ "$sectors" -ge 1 ] || { echo "gpu-porep: SECTORS must be at least 1" >&2; exit 2; }
work=${WORK:-/tmp/gpu-porep}
outdir=${GPU_POREP_OUT:-${OUT:-/tmp/gpu-porep-out}}
mkdir -p "$outdir" "$work"
log=$outdir/gpu-porep.log
summary=$outdir/summary.txt
report=$outdir/gpu-porep.json
jobs_json=$outdir/jobs.json
: >"$log"
: >"$jobs_json"
start=$SECONDS
margin=20
status=0
zpid='' smipid=''
seal_pids=()

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	for p in $zpid $smipid "${seal_pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	if [ -z "${KEEP:-}" ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT

now() { date +%s.%N; }
# since T0: seconds (two decimals) from a now() reading.
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# ceil X: the whole seconds at or above X.
ceil() { awk -v x="$1" 'BEGIN { c = int(x); if (c < x) c++; print c }'; }
row_width=34
step_log=$log
# shellcheck source=bench/lib-budget.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib-budget.sh"
# run NAME CAP CMD...: CMD under timeout, its output in the log; sets
# took (seconds) and returns CMD's status.
took=0
run() {
	local name=$1 c=$2 rc=0 t0=$SECONDS
	shift 2
	timeout -k 5 "$(cap "$c")" "$@" >>"$log" 2>&1 || rc=$?
	took=$((SECONDS - t0))
	if [ "$rc" -ne 0 ]; then
		echo "$name FAILED (exit $rc after $took s, see gpu-porep.log)" | tee -a "$log"
		status=1
	fi
	return "$rc"
}

if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$log" ||
		true
fi
echo "gpu-porep: $size sectors, $sectors of them, budget $total_s s, work in $work" | tee -a "$log"

# 32-byte identities of the development sectors.
prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
seed=$(printf '%02x' $(seq 101 132) | tr -d '\n')

# 1. The circuit, with the sectors sealed beside it.
step "seal $sectors sectors sparsely (beside the circuit)"
seal_ok=0
if fits "seal $sectors sectors (sparse)" "${est[2]}"; then
	seal_t0=$SECONDS
	for s in $(seq 1 "$sectors"); do
		timeout -k 5 "$(cap $((est[2] * 3)))" "$zkp" porep seal --sparse --sector-size "$size" \
			--random "$s" --prover-id "$prover" --sector-id "$s" --ticket "$ticket" \
			--seed "$seed" -o "$work/c1-$s.json" >>"$log" 2>&1 &
		seal_pids+=($!)
	done
fi
circuit_ok=0
step "circuit"
if fits "circuit ($size partition)" "${est[0]}"; then
	# In memory (about 6.3 GB at 32 GiB), the challenges on every core: one
	# synthesis pass where the streaming builder runs three on one core.
	if run "circuit" $((est[0] * 3)) "$zkp" porep circuit --sector-size "$size" \
		-o "$work/porep.pce" --in-memory; then
		circuit_ok=1
		row "circuit ($size partition)" ok "$took s"
	else
		row "circuit ($size partition)" FAILED "after $took s"
	fi
fi
if [ ${#seal_pids[@]} -gt 0 ]; then
	sealed=0
	for p in "${seal_pids[@]}"; do
		if wait "$p"; then
			sealed=$((sealed + 1))
		fi
	done
	seal_pids=()
	seal_s=$((SECONDS - seal_t0))
	if [ "$sealed" -eq "$sectors" ]; then
		seal_ok=1
		row "seal $sectors sectors (sparse)" ok "$seal_s s from the start, beside the circuit"
	else
		status=1
		row "seal $sectors sectors (sparse)" FAILED "$sealed of $sectors sealed"
	fi
fi

# 2. The key, on the GPU when there is one.
key_ok=0
key=$work/key.INSECURE-DEV.zkpc
vk=$work/key.INSECURE-DEV.vk
step "key"
if [ "$circuit_ok" -eq 1 ] && fits "key (INSECURE, standalone .zkpc)" "${est[1]}"; then
	if run "key" $((est[1] * 3)) "$zkp" setup "$work/porep.pce" -o "$work/key" --seed 1 \
		--backend auto --cache-only; then
		key_ok=1
		where=$(grep -o "points on [A-Za-z0-9 ]*" "$log" | tail -n 1)
		times=$(grep -o "setup [0-9.]* s, write [0-9.]* s" "$log" | tail -n 1)
		row "key (INSECURE, standalone .zkpc)" ok \
			"$took s (${times:-?}), ${where:-?}, $(du -h "$key" | cut -f1)"
	else
		row "key (INSECURE, standalone .zkpc)" FAILED "after $took s"
	fi
fi

# 3. zkpd on the GPU.
sock=$work/zkpd.sock
up=0
step "zkpd"
if [ "$key_ok" -eq 1 ] && fits "zkpd start and load" "${est[3]}"; then
	cat >"$work/zkpd.conf" <<CONF
# INSECURE development key: a GPU benchmark only
[server]
listen = unix:$sock
[gpus]
devices = auto
[circuit.porep]
pce = $work/porep.pce
key = $key
key_format = bellman
porep_sector_size = $bytes
preload = true
CONF
	if command -v nvidia-smi >/dev/null 2>&1; then
		nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
			-lms 200 >"$outdir/smi.csv" 2>/dev/null &
		smipid=$!
	fi
	t0=$SECONDS
	"$zkpd" --config "$work/zkpd.conf" 2>"$outdir/zkpd.log" &
	zpid=$!
	limit=$((SECONDS + $(cap $((est[3] * 3)))))
	while [ $SECONDS -lt $limit ] && kill -0 "$zpid" 2>/dev/null; do
		if "$zkpctl" --connect "unix:$sock" --json status 2>/dev/null >"$work/status0.json" &&
			grep -q '"loaded":true' "$work/status0.json"; then
			up=1
			break
		fi
		sleep 0.5
	done
	if [ "$up" -eq 1 ]; then
		device=$(grep -o '"devices":\[{"name":"[^"]*"' "$work/status0.json" | sed 's/.*"name":"//; s/"//')
		row "zkpd start and load" ok "$((SECONDS - t0)) s, device ${device:-?}"
	else
		status=1
		row "zkpd start and load" FAILED "not loaded after $((SECONDS - t0)) s"
		tail -n 20 "$outdir/zkpd.log" | tee -a "$log"
	fi
fi

# 4. One sector alone, then all of them back to back, each with zkpctl
# porep (the C1 sent with the job); proofs lists "SECTOR RUN" pairs.
prove_bg() { # SECTOR RUN CAP: in the background, its pid in $!
	timeout -k 5 "$3" "$zkpctl" --connect "unix:$sock" --json --timeout "$3" porep porep \
		"$work/c1-$1.json" --out "$work/c2-$1-$2.bin" >"$work/job-$1-$2.json" 2>>"$log" &
}
one_s=0
proofs=()
if [ "$up" -eq 1 ] && [ "$seal_ok" -eq 1 ] && fits "one sector alone" "${est[4]}"; then
	step "one sector alone"
	t0=$(now)
	prove_bg 1 alone "$(cap $((est[4] * 4)))"
	if wait $!; then
		one_s=$(since "$t0")
		proofs+=("1 alone")
		cat "$work/job-1-alone.json" >>"$jobs_json"
		row "one sector alone" ok "$one_s s wall"
	else
		status=1
		row "one sector alone" FAILED "after $(since "$t0") s"
	fi
fi
b2b_s=0
one_ceil=$(ceil "$one_s")
if [ "$one_ceil" -gt 0 ] && [ "$sectors" -gt 1 ] &&
	fits "$sectors sectors back to back" $((one_ceil * sectors + 10)); then
	step "$sectors sectors back to back"
	t0=$(now)
	c=$(cap $((one_ceil * sectors * 3 + 30)))
	pids=()
	for s in $(seq 1 "$sectors"); do
		prove_bg "$s" b2b "$c"
		pids+=($!)
	done
	done_n=0
	for i in "${!pids[@]}"; do
		s=$((i + 1))
		if wait "${pids[$i]}"; then
			done_n=$((done_n + 1))
			proofs+=("$s b2b")
			cat "$work/job-$s-b2b.json" >>"$jobs_json"
		fi
	done
	b2b_s=$(since "$t0")
	if [ "$done_n" -eq "$sectors" ]; then
		row "$sectors sectors back to back" ok "$b2b_s s wall"
	else
		status=1
		row "$sectors sectors back to back" FAILED "$done_n of $sectors proved in $b2b_s s"
	fi
fi
if [ "$up" -eq 1 ]; then
	"$zkpctl" --connect "unix:$sock" --json status >"$outdir/status.json" 2>>"$log" || true
	kill -TERM "$zpid" 2>/dev/null || true
	wait "$zpid" 2>/dev/null || true
	zpid=
fi
if [ -n "$smipid" ]; then
	kill -TERM "$smipid" 2>/dev/null || true
	wait "$smipid" 2>/dev/null || true
	smipid=
fi

# 5. Every proof against the development key's vk.
verified=0
if [ ${#proofs[@]} -gt 0 ]; then
	step "verify ${#proofs[@]} proofs"
	for p in "${proofs[@]}"; do
		read -r sec runname <<<"$p"
		if timeout -k 5 "$(cap 60)" "$zkp" porep verify --vk "$vk" --c1 "$work/c1-$sec.json" \
			--proof "$work/c2-$sec-$runname.bin" --prover-id "$prover" --sector-id "$sec" \
			2>>"$log" | grep -qx valid; then
			verified=$((verified + 1))
		fi
	done
	if [ "$verified" -eq ${#proofs[@]} ]; then
		row "verify (zkp porep verify)" ok "$verified of ${#proofs[@]} valid"
	else
		status=1
		row "verify (zkp porep verify)" FAILED "$verified of ${#proofs[@]} valid"
	fi
fi

step "done"
python3 - "$jobs_json" "$outdir/status.json" "$outdir/smi.csv" "$report" "$size" "$one_s" \
	"$b2b_s" "$sectors" "$verified" "$outdir/zkpd.log" <<'PY' >"$work/figures.txt" 2>>"$log" || true
import json, os, sys
jobs_path, status_path, smi_path, report, size = sys.argv[1:6]
one_s, b2b_s, sectors, verified = (float(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8]),
                                   int(sys.argv[9]))
zkpd_log = sys.argv[10]
text = open(jobs_path).read() if os.path.exists(jobs_path) else ""
dec, i, jobs = json.JSONDecoder(), 0, []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    o, i = dec.raw_decode(text, i)
    jobs.append(o)
out = {"bench": "gpu-porep", "sector_size": size, "sectors": sectors, "one_sector_s": one_s,
       "back_to_back_s": b2b_s, "proofs_verified": verified, "jobs": jobs}
lines = []
if jobs:
    j = jobs[0]
    lines.append("sector alone: %.1f s in zkpd (%s partitions), %.0f s wall" %
                 (j.get("total_seconds", 0), j.get("partitions", "?"), one_s))
    st = " ".join("%s %.3f" % (s["stage"], s["seconds"]) for s in j.get("stages", []))
    if st:
        lines.append("  stages: " + st)
    for p in j.get("partition_times", []):
        sp = p.get("spans", {})
        lines.append("  partition %s: %.2f s: %s" % (p.get("partition", "?"),
                     p.get("total_seconds", 0), " ".join(
                         "%s %.3f" % (k, v) for k, v in sp.items() if v >= 0.0005)))
if b2b_s > 0:
    out["sectors_per_hour"] = 3600.0 * sectors / b2b_s
    lines.append("back to back: %d sectors in %.2f s: %.1f sectors/hour" %
                 (sectors, b2b_s, out["sectors_per_hour"]))
elif one_s > 0:
    out["sectors_per_hour"] = 3600.0 / one_s
    lines.append("one sector: %.1f sectors/hour" % out["sectors_per_hour"])
if os.path.exists(status_path):
    try:
        st = json.load(open(status_path))
        mem = st.get("memory", {})
        out["peak_rss_bytes"] = mem.get("peak_rss_bytes")
        lines.append("zkpd peak RSS %.1f GiB" % (mem.get("peak_rss_bytes", 0) / 2**30))
        for d in st.get("devices", []):
            busy = d.get("busy_seconds")
            if busy is not None:
                out.setdefault("busy_seconds", {})[d["name"]] = busy
                if b2b_s + one_s > 0:
                    lines.append("device %s busy %.1f s (kernel time) over %.1f s of proving: %.0f%%" %
                                 (d["name"], busy, one_s + b2b_s, 100 * busy / (one_s + b2b_s)))
    except ValueError:
        pass
if os.path.exists(smi_path):
    util, mem = [], []
    for line in open(smi_path):
        parts = [p.strip() for p in line.split(",")]
        try:
            util.append(float(parts[1]))
            mem.append(float(parts[2]))
        except (IndexError, ValueError):
            continue
    if mem:
        out["peak_device_mib"] = max(mem)
        busy = [u for u in util]
        # the proving window: from the first sample with work to the last
        first = next((k for k, u in enumerate(util) if u > 0), None)
        last = max((k for k, u in enumerate(util) if u > 0), default=None)
        if first is not None:
            w = util[first:last + 1]
            out["smi_util_mean_pct"] = sum(w) / len(w)
            lines.append("nvidia-smi: peak device memory %.1f GiB, utilisation %.0f%% mean over "
                         "%.0f s of samples" % (max(mem) / 1024, out["smi_util_mean_pct"],
                                                 len(w) * 0.2))
# What zkpd planned to hold on each GPU (the device memory plan's log
# line): whether B_G2 and the matrices stayed on the host.
# How each partition job's witness crossed the bus (its summary line:
# "witness up X MiB packed" or "... whole").
import re
ups = {"packed": [], "whole": []}
if os.path.exists(zkpd_log):
    for line in open(zkpd_log, errors="replace"):
        k = line.find("circuit ")
        if k >= 0 and " resident (G1 queries" in line:
            plan = line[k:].strip()
            out.setdefault("device_plans", []).append(plan)
            lines.append("device plan: " + plan)
        m = re.search(r" witness up ([0-9.]+) MiB (packed|whole) ", line)
        if m:
            ups[m.group(2)].append(float(m.group(1)))
for kind, mib in ups.items():
    if mib:
        out["witness_up_" + kind] = {"jobs": len(mib), "median_mib": sorted(mib)[len(mib) // 2]}
        lines.append("witness up %s in %d jobs, median %.1f MiB" %
                     (kind, len(mib), sorted(mib)[len(mib) // 2]))
json.dump(out, open(report, "w"))
print("\n".join(lines))
PY
{
	echo "== gpu-porep summary ($size, $((SECONDS - start)) s of a $total_s s budget)"
	printf '%-34s %-8s %s\n' step result detail
	printf '%s\n' "${rows[@]}"
	cat "$work/figures.txt" 2>/dev/null || true
	if [ "$status" -eq 0 ]; then
		echo "gpu-porep: every step that ran passed in $((SECONDS - start)) s"
	else
		echo "gpu-porep: FAILURES (see above and gpu-porep.log), $((SECONDS - start)) s"
	fi
} | tee "$summary"
exit "$status"
