#!/usr/bin/env bash
# Device serving without a GPU: zkpd with ZKPD_TEST_OFFHOST_DEVICES=2 proves
# on two test devices whose memory the host cannot read (backend.h's
# offhost backend, the stand-in for GPUs), so the daemon's device paths run
# here: a, b, c uploaded (evaluated on the device once it holds the
# circuit), H and the MSMs on the device, the key's queries and the
# circuit's matrices resident per device, several devices at once, unload and reload
# (resident keys dropped and made again), and device faults with and
# without gpus.fallback_cpu. Every proof is verified; every proof's spans
# add up to its total time (zkpctl's sum line), and the devices' busy time
# shows in Status, /metrics and the job summaries. A small synthetic
# circuit with an INSECURE development key.
# Usage: devices.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
if ! have_test_hooks; then
	echo "SKIP: no zkpd-test-hooks in this build (build with -DZKPD_TEST_HOOKS=ON)"
	exit 77
fi
zkpd=$zkpd_hooks # the daemon with test devices
make_work_dir
sockdir=$(mktemp -d /tmp/zkpd-devices.XXXXXX)
addr=unix:$sockdir/zkpd.sock
run_timeout=120
said_bytes=300
trap cleanup EXIT

"$zkp" synth --shape porep --constraints 4000 -o small.pce --witness small.wtns >/dev/null
"$zkp" setup small.pce -o small >/dev/null 2>&1
vk=small.INSECURE-DEV.vk

# write_conf FILE [EXTRA INI LINES...]
write_conf() {
	local f=$1
	shift
	{
		echo "# INSECURE development key: device test only"
		echo "[server]"
		echo "listen = $addr"
		for l in "$@"; do echo "$l"; done
		echo "[circuit.small]"
		echo "pce = $work/small.pce"
		echo "key = $work/small.INSECURE-DEV.params"
		echo "key_format = bellman"
		echo "preload = true"
	} >"$f"
}

start() {
	local log=$1
	shift
	launch_zkpd "$log" "$@"
	wait_healthy "$pid" 600 "$zkpctl" --connect "$addr" && return 0
	echo "zkpd did not start; its log:" >&2
	cat "$log" >&2
	exit 1
}

# prove_all TAG N: N concurrent proofs; sets $good to how many verified.
prove_all() {
	local tag=$1 n=$2 i
	local ps=()
	for i in $(seq "$n"); do
		"$zkpctl" --connect "$addr" --timeout 120 prove small small.wtns \
			--out "$tag$i.bin" --public-json "$tag$i.json" >"$tag$i.out" 2>&1 &
		ps+=($!)
	done
	good=0
	for i in $(seq "$n"); do
		if wait "${ps[$((i - 1))]}" && valid_proof "$vk" "$tag$i.bin" "$tag$i.json"; then
			good=$((good + 1))
		else
			echo "# $tag $i: $(tail -n 1 "$tag$i.out")"
		fi
	done
}

# ---- two devices ----
write_conf two.conf
ZKPD_TEST_OFFHOST_DEVICES=2 start two.log --config two.conf
run "$zkpctl" --connect "$addr" --json status
devs=$(grep -o '"name":"offhost:[0-9]"' out.txt | sort -u | wc -l)
check "Status lists the two test devices" "$(head -c 300 out.txt)" test "$devs" -eq 2
prove_all two 8
check "8 concurrent proofs on two devices all verify" "$good of 8" test "$good" -eq 8
# zkpctl prove's "spans S s of T s (P %)": the spans tile each job's time.
sums=$(sed -n 's/^  spans \([0-9.]*\) s of \([0-9.]*\) s .*/\1 \2/p' two[0-9]*.out)
check "each of the 8 proofs' spans add up to its total within 5 %" "$(echo "$sums" | tr '\n' ' ')" \
	awk 'BEGIN { n = 0 } { n++; if (!($2 > 0 && $1 >= 0.95 * $2 && $1 <= 1.05 * $2)) bad = 1 }
	     END { exit bad || n != 8 }' <<<"$sums"
check "zkpctl names each job's device busy time" "$(head -n 3 two1.out | tr '\n' ' ')" \
	grep -Eq '^  device offhost:[01], busy [0-9.]+ s for this job' two1.out
check "job summaries give the device's busy time and the spans' sum" \
	"$(grep -m1 'job 1 done' two.log)" \
	grep -Eq 'job [0-9]+ done: .*\| spans [0-9.]+ s = [0-9.]+ % of total \| device busy [0-9.]+ s' two.log
run "$zkpctl" --connect "$addr" --json status
busy=$(grep -o '"busy_seconds":[0-9.e+-]*' out.txt | cut -d: -f2 | tr '\n' ' ')
check "Status gives both devices' busy seconds ($busy)" "$(head -c 300 out.txt)" \
	awk -v b="$busy" 'BEGIN { n = split(b, v, " "); exit !(n == 2 && v[1] > 0 && v[2] > 0) }'
frac=$(grep -o '"busy_fraction":[0-9.e+-]*' out.txt | cut -d: -f2 | tr '\n' ' ')
check "and their busy fractions ($frac)" "$(head -c 300 out.txt)" \
	awk -v b="$frac" 'BEGIN { n = split(b, v, " "); exit !(n == 2 && v[1] > 0 && v[1] <= 1 && v[2] > 0 && v[2] <= 1) }'
run "$zkpctl" --connect "$addr" metrics
check "/metrics counts each device's busy seconds" "$(grep device_busy out.txt | tr '\n' ' ')" \
	test "$(grep -Ec '^zkpd_device_busy_seconds_total\{device="offhost:[01]",kind="offhost"\} [0-9.e+-]+$' out.txt)" -eq 2
p0=$(sed -n 's/^zkpd_pipeline_proofs_total{pipeline="0",device="offhost:0"} \([0-9]*\)$/\1/p' out.txt)
p1=$(sed -n 's/^zkpd_pipeline_proofs_total{pipeline="1",device="offhost:1"} \([0-9]*\)$/\1/p' out.txt)
check "both devices proved (${p0:-?} and ${p1:-?})" "$(grep pipeline_proofs out.txt | tr '\n' ' ')" \
	test "${p0:-0}" -ge 1 -a "${p1:-0}" -ge 1 -a $((${p0:-0} + ${p1:-0})) -eq 8
check "device memory gauges for both devices" "$(grep device_memory out.txt | tr '\n' ' ')" \
	test "$(grep -Ec '^zkpd_device_memory(_used)?_bytes\{device="offhost:[01]",kind="offhost"\} [0-9]+$' out.txt)" -eq 4
check "job summaries name the device" "$(grep -m1 'job 1 done' two.log)" \
	grep -Eq 'job [0-9]+ done: circuit small priority normal device offhost:[01] ' two.log
# Once a device holds the circuit (after its first job), later jobs there
# evaluate a, b, c on it: a second round of proofs does, on both devices.
prove_all round2 4
check "4 more proofs verify" "$good of 4" test "$good" -eq 4
ndev_eval=$(grep -Eo 'done: circuit small priority normal device offhost:[01] \(eval on the device\)' \
	two.log | sort -u | wc -l)
check "jobs after the first evaluate on their device, on both ($ndev_eval)" \
	"$(grep -m1 'eval on the device' two.log)" test "$ndev_eval" -eq 2

# Unload drops the resident keys; the next proofs make them again.
run "$zkpctl" --connect "$addr" unload small
check "unload after the jobs" "$(said)" test "$rc" -eq 0
run "$zkpctl" --connect "$addr" load small
check "load again" "$(said)" test "$rc" -eq 0
prove_all again 4
check "proofs after a reload verify" "$good of 4" test "$good" -eq 4
stop_zkpd

# ---- device faults on the test devices ----
# A proof makes 7 NTTs and 4 G1 MSMs on its device: a fault every 13th call
# on each device hits about every other job.
write_conf faults.conf
ZKPD_TEST_OFFHOST_DEVICES=2 ZKPD_INJECT_DEVICE_FAULT_EVERY=13 start faults.log \
	--config faults.conf
prove_all f 8
nfault=$(grep -l ERR_DEVICE f[0-9]*.out 2>/dev/null | wc -l)
check "without fallback a device fault fails its job alone ($nfault failed, $good proved)" \
	"$good proved, $nfault ERR_DEVICE" test "$nfault" -ge 1 -a "$good" -ge 1 -a $((good + nfault)) -eq 8
stop_zkpd

write_conf fallback.conf "[gpus]" "fallback_cpu = true"
ZKPD_TEST_OFFHOST_DEVICES=2 ZKPD_INJECT_DEVICE_FAULT_EVERY=13 start fallback.log \
	--config fallback.conf
prove_all fb 8
check "with gpus.fallback_cpu every job verifies" "$good of 8" test "$good" -eq 8
run "$zkpctl" --connect "$addr" --json status
sum() { grep -o "\"$1\":[0-9]*" out.txt | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }'; }
faults=$(sum faults)
fallbacks=$(sum cpu_fallbacks)
logged=$(grep -c "proving it again on the CPU backend" fallback.log || true)
check "faults and fallbacks counted per device ($faults faults, $fallbacks fallbacks)" \
	"status $faults/$fallbacks, log $logged" \
	test "${fallbacks:-0}" -ge 1 -a "${fallbacks:-0}" -eq "$logged" -a "${faults:-0}" -eq "$logged"
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
