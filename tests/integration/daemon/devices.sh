#!/usr/bin/env bash
# Device serving without a GPU: zkpd with ZKPD_TEST_OFFHOST_DEVICES=2 proves
# on two test devices whose memory the host cannot read (backend.h's
# offhost backend, the stand-in for GPUs), so the daemon's device paths run
# here: a, b, c uploaded (evaluated on the device once it holds the
# circuit), H and the MSMs on the device, the key's queries and the
# circuit's matrices resident per device, several devices at once, unload and reload
# (resident keys dropped and made again), and device faults with and
# without gpus.fallback_cpu, and device memory admission (gpus.device_memory:
# B_G2 left on the host where it does not fit, one job's buffers at a time,
# a circuit that cannot fit refused or sent to the CPU). Every proof is verified; every proof's spans
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
# Their witnesses (a synthetic PoRep's, mostly 0 and 1) went up packed; the
# first jobs', evaluated on the host, whole.
npacked=$(grep -Ec '\(eval on the device\) witness up [0-9]+\.[0-9]{2} MiB packed ' two.log)
check "witnesses evaluated on a device went up packed ($npacked lines)" \
	"$(grep -m1 'witness up' two.log)" \
	test "$npacked" -eq "$(grep -c '(eval on the device)' two.log)" -a "$npacked" -ge 2
check "a job evaluated on the host sent its witness whole" "$(grep -m1 'witness up' two.log)" \
	grep -Eq 'device offhost:[01] witness up [0-9]+\.[0-9]{2} MiB whole ' two.log
# With B_G2 on the device too, nothing on the host reads those witnesses
# after eval: the host keeps them packed until the job ends.
nheld=$(grep -Ec '\(eval on the device\) witness up [0-9]+\.[0-9]{2} MiB packed held [0-9]+\.[0-9]{2} MiB packed ' two.log)
check "and the host kept them packed while the device had them ($nheld lines)" \
	"$(grep -m1 'eval on the device' two.log)" test "$nheld" -eq "$npacked"
check "and only they: jobs evaluated on the host kept theirs whole" \
	"$(grep -m1 'MiB whole' two.log)" test "$(grep -c ' held [0-9.]* MiB packed' two.log)" -eq "$nheld"

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

# A wrong G1 MSM result on a device is found at VERIFY, when the host keeps
# the witness packed: the CPU fallback unpacks it and proves there.
ZKPD_TEST_OFFHOST_DEVICES=1 ZKPD_INJECT_DEVICE_CORRUPT_EVERY=3 start corrupt.log \
	--config fallback.conf
prove_all c 8
check "with gpus.fallback_cpu every job with a wrong device result verifies" "$good of 8" \
	test "$good" -eq 8
nrest=$(grep -Ec 'proved on the CPU after a device fault\) witness up [0-9.]+ MiB packed held [0-9.]+ MiB packed ' corrupt.log || true)
check "some of them had their witness unpacked from the host's packed copy ($nrest)" \
	"$(grep -m1 'proved on the CPU' corrupt.log)" test "$nrest" -ge 1
stop_zkpd

# ---- device memory admission (gpus.device_memory) ----
# Sizes from the key and circuit: a job's buffers are a, b, c (3 * 32 n)
# and the witness (32 N_w); the resident G1 queries 96 bytes a point, B_G2
# 192. A limit with no room beside them for B_G2 leaves its MSM on the host;
# then, with the reserved total R of everything resident (Status, after a
# proof under a wide limit), R + 1.5 jobs lets one job at a time hold device
# memory; below the G1 queries and one job the circuit cannot run there.
"$zkp" inspect small.INSECURE-DEV.params >key.txt
pts() { awk -v s="$1" '$1 == s { print $2 }' key.txt; }
g1=$((96 * ($(pts h) + $(pts l) + $(pts a) + $(pts b_g1))))
g2=$((192 * $(pts b_g2)))
"$zkp" inspect small.pce >pce.txt
n=$((1 << $(sed -n 's/^domain *2^\([0-9]*\)$/\1/p' pce.txt)))
nw=$(($(awk '$1 == "inputs" { print $2 }' pce.txt) + $(awk '$1 == "aux" { print $2 }' pce.txt)))
job=$((32 * (3 * n + nw)))
check "sizes from zkp inspect (G1 $g1, B_G2 $g2, a job $job bytes)" "$(head -3 key.txt)" \
	test "$g1" -gt 0 -a "$g2" -gt 0 -a "$job" -gt 0
mem_status() { # sets reserved, peak, waits, limit of the first device
	run "$zkpctl" --connect "$addr" --json status
	reserved=$(grep -o '"memory_reserved_bytes":[0-9]*' out.txt | head -1 | cut -d: -f2)
	peak=$(grep -o '"memory_peak_reserved_bytes":[0-9]*' out.txt | head -1 | cut -d: -f2)
	waits=$(grep -o '"memory_waits":[0-9]*' out.txt | head -1 | cut -d: -f2)
	limit=$(grep -o '"memory_limit_bytes":[0-9]*' out.txt | head -1 | cut -d: -f2)
}

write_conf wide.conf "[gpus]" "device_memory = 1G"
ZKPD_TEST_OFFHOST_DEVICES=1 start wide.log --config wide.conf
prove_all wide 1
check "a proof under a 1 GiB device limit verifies" "$good of 1" test "$good" -eq 1
mem_status
R=${reserved:-0}
check "Status: the limit, and only the resident share reserved once the job ended ($R)" \
	"$(head -c 400 out.txt)" test "${limit:-0}" -eq $((1 << 30)) -a "$R" -ge $((g1 + g2)) \
	-a "${peak:-0}" -eq $((R + job))
check "the log gives the plan" "$(grep -m1 'resident (G1 queries' wide.log)" \
	grep -q 'circuit small on offhost:0: .* resident (G1 queries, B_G2, matrices, NTT tables)' \
	wide.log
"$zkp" inspect --json small.pce >inspect.json
dm() { grep -o "\"$1\": [0-9]*" inspect.json | head -1 | awk '{ print $2 }'; }
check "zkp inspect predicts the plan: G1, B_G2, matrices and a job (R = $R)" \
	"$(grep -o '"device_model": {[^}]*}' inspect.json)" \
	test "$(dm key_g1_bytes)" -eq "$g1" -a "$(dm key_g2_bytes)" -eq "$g2" -a \
	"$(dm job_bytes)" -eq "$job" -a $((g1 + g2 + $(dm matrices_bytes))) -eq "$R"
run "$zkpctl" --connect "$addr" metrics
check "/metrics gives the limit and the reservation" "$(grep device_memory_ out.txt | tr '\n' ' ')" \
	grep -q "^zkpd_device_memory_reserved_bytes{device=\"offhost:0\"} $R\$" out.txt
stop_zkpd

write_conf nog2.conf "[gpus]" "device_memory = $((g1 + job + g2 - 1))"
ZKPD_TEST_OFFHOST_DEVICES=1 start nog2.log --config nog2.conf
prove_all nog2 2
check "with no room for B_G2 beside one job both proofs verify" "$good of 2" test "$good" -eq 2
check "the log says B_G2's MSM runs on the host" "$(grep -m1 'resident (' nog2.log)" \
	grep -q 'B_G2 does not fit: its MSM runs on the host' nog2.log
stop_zkpd

cap=$((R + job + job / 2))
write_conf one.conf "[gpus]" "device_memory = $cap" "workers_per_device = 2"
ZKPD_TEST_OFFHOST_DEVICES=1 start one.log --config one.conf
prove_all one 6
check "6 concurrent proofs with room for one job's buffers all verify" "$good of 6" \
	test "$good" -eq 6
mem_status
check "never more than one job's buffers reserved (peak $peak = $R + $job)" \
	"$(head -c 400 out.txt)" test "${peak:-0}" -eq $((R + job)) -a "${peak:-0}" -le "$cap"
check "jobs waited for device memory (${waits:-0})" "$(head -c 400 out.txt)" \
	test "${waits:-0}" -ge 1
check "their summaries show the wait as a span" "$(grep -m1 'device_memory' one.log)" \
	grep -Eq 'job [0-9]+ done: .*\| device_memory [0-9.]+ \|' one.log
stop_zkpd

write_conf tiny.conf "[gpus]" "device_memory = $((g1 + job - 1))"
ZKPD_TEST_OFFHOST_DEVICES=1 start tiny.log --config tiny.conf
prove_all tiny 1
check "a circuit that cannot fit fails its job with ERR_DEVICE" "$(tail -n 1 tiny1.out)" \
	grep -q 'ERR_DEVICE.*circuit small does not fit on offhost:0: its key.s G1 queries' tiny1.out
run "$zkpctl" --connect "$addr" health
check "and the daemon keeps serving" "$(said)" test "$rc" -eq 0
stop_zkpd
write_conf tinyfb.conf "[gpus]" "device_memory = $((g1 + job - 1))" "fallback_cpu = true"
ZKPD_TEST_OFFHOST_DEVICES=1 start tinyfb.log --config tinyfb.conf
prove_all tinyfb 2
check "with gpus.fallback_cpu it is proved on the CPU instead" "$good of 2" test "$good" -eq 2
mem_status
check "counted as fallbacks, not faults" "$(head -c 400 out.txt)" \
	test "$(grep -o '"cpu_fallbacks":[0-9]*' out.txt | head -1 | cut -d: -f2)" -eq 2 -a \
	"$(grep -o '"faults":[0-9]*' out.txt | head -1 | cut -d: -f2)" -eq 0
check "a WARN line says why" "$(grep -m1 'on the CPU backend' tinyfb.log)" \
	grep -q 'does not fit on offhost:0.*proving it on the CPU backend (gpus.fallback_cpu)' \
	tinyfb.log
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
