#!/usr/bin/env bash
# Faults, each against a real zkpd on the demo circuit (INSECURE
# development key):
#   - a client killed mid-job: the daemon keeps serving and the job ends;
#   - zkpd killed with SIGKILL mid-job: a restart takes over the stale
#     socket, reuses the circuit files and key cache on disk, and the same
#     request_ids resubmitted all complete with proofs that verify;
#   - a disk that fills while a .pce, witness or key cache is written
#     (RLIMIT_FSIZE): no partial file is ever left under the final name, and
#     a prove whose cache cannot be written still succeeds;
#   - a memory budget smaller than one job: jobs wait queued, status shows
#     them, cancel ends them, nothing crashes;
#   - injected device faults (ZKPD_INJECT_DEVICE_FAULT_EVERY): the jobs hit
#     fail alone with ERR_DEVICE, the others succeed.
# Usage: faults.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
make_work_dir
demo=$work/demo
vk=$demo/demo.INSECURE-DEV.vk
sockdir=$(mktemp -d /tmp/zkpd-faults.XXXXXX)
sock=$sockdir/zkpd.sock
addr=unix:$sock

run_timeout=120
said_bytes=300
trap cleanup EXIT

# start_daemon LOG [ARGS...]: zkpd on $addr; waits until it answers.
start_daemon() {
	local log=$1
	shift
	launch_zkpd "$log" --listen "$addr" "$@"
	wait_healthy "$pid" 600 "$zkpctl" --connect "$addr" && return 0
	echo "zkpd did not start; its log:" >&2
	cat "$log" >&2
	exit 1
}

# ---- a client killed mid-job ----
start_daemon zkpd1.log --demo-dir "$demo"
"$zkpctl" --connect "$addr" prove demo "$demo/demo.wtns" --request-id killed-client \
	--out killed.bin >/dev/null 2>&1 &
client=$!
sleep 0.05
kill -KILL "$client" 2>/dev/null || true
wait "$client" 2>/dev/null || true
run "$zkpctl" --connect "$addr" --json submit demo "$demo/demo.wtns" --request-id killed-client
id=$(json_field job_id out.txt)
run "$zkpctl" --connect "$addr" await "$id" --out killed.bin --public-json killed.json
if [ "$rc" -eq 0 ] && valid_proof "$vk" killed.bin killed.json; then
	ok "a client killed mid-job: its job ends and the same request_id returns the proof"
else
	bad "a client killed mid-job" "$(said)"
fi

# ---- zkpd killed with SIGKILL mid-job, restarted ----
for i in 1 2 3 4 5 6; do
	"$zkpctl" --connect "$addr" submit demo "$demo/demo.wtns" --request-id "crash-$i" \
		>/dev/null 2>&1 || true
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
pid=
if [ -S "$sock" ]; then
	ok "SIGKILL leaves the socket file behind (a restart must cope)"
else
	bad "SIGKILL leaves the socket file behind" "no socket file"
fi
start_daemon zkpd2.log --demo-dir "$demo"
if grep -q "removed stale socket" zkpd2.log; then
	ok "the restart removes the stale socket and listens"
else
	bad "the restart removes the stale socket" "$(tail -n3 zkpd2.log | tr '\n' ' ')"
fi
if grep -q "making the demo circuit" zkpd2.log; then
	bad "the restart reuses the circuit files on disk" "demo circuit made again"
else
	ok "the restart reuses the circuit files on disk"
fi
all=1
for i in 1 2 3 4 5 6; do
	run "$zkpctl" --connect "$addr" prove demo "$demo/demo.wtns" --request-id "crash-$i" \
		--out "crash$i.bin" --public-json "crash$i.json"
	if [ "$rc" -ne 0 ] || ! valid_proof "$vk" "crash$i.bin" "crash$i.json"; then
		all=0
		bad "resubmitted crash-$i completes after the restart" "$(said)"
	fi
done
[ "$all" -eq 0 ] || ok "all 6 request_ids resubmitted after SIGKILL complete and verify"
stop_zkpd

# ---- disk full ----
# RLIMIT_FSIZE makes writes past the limit fail (EFBIG with SIGXFSZ
# ignored, or the process killed by SIGXFSZ): either way the target name
# must never hold a partial file.
run bash -c "trap '' XFSZ; ulimit -f 64; exec '$zkp' synth --shape porep --constraints 60000 \
	-o full.pce --witness full.wtns"
if [ "$rc" -ne 0 ] && [ ! -e full.pce ] && [ ! -e full.wtns ]; then
	ok "synth on a full disk (EFBIG) fails and leaves no full.pce or full.wtns"
else
	bad "synth on a full disk (EFBIG)" "$(said); $(ls full.* 2>&1 | tr '\n' ' ')"
fi
run bash -c "ulimit -f 64; exec '$zkp' synth --shape porep --constraints 60000 -o full2.pce"
if [ "$rc" -ne 0 ] && [ ! -e full2.pce ]; then
	ok "synth killed by SIGXFSZ mid-write leaves no full2.pce"
else
	bad "synth killed by SIGXFSZ mid-write" "$(said)"
fi
if "$zkp" inspect full.pce >/dev/null 2>&1 || "$zkp" inspect full2.pce >/dev/null 2>&1; then
	bad "no partial .pce loads" "inspect accepted one"
else
	ok "no partial .pce loads"
fi
# A key cache that cannot be written: the proof still succeeds.
"$zkp" synth --shape porep --constraints 4000 -o small.pce --witness small.wtns >/dev/null
"$zkp" setup small.pce -o small >/dev/null 2>&1
run bash -c "trap '' XFSZ; ulimit -f 8; exec '$zkp' prove --key small.INSECURE-DEV.params \
	--pce small.pce --witness small.wtns -o small.bin --public small.json"
if [ "$rc" -eq 0 ] && valid_proof small.INSECURE-DEV.vk small.bin small.json; then
	ok "prove with a key cache that cannot be written still proves"
else
	bad "prove with an unwritable key cache" "$(said)"
fi
run "$zkp" prove --key small.INSECURE-DEV.params --pce small.pce --witness small.wtns \
	-o small2.bin --public small2.json
if [ "$rc" -eq 0 ] && valid_proof small.INSECURE-DEV.vk small2.bin small2.json; then
	ok "the next prove (disk no longer full) proves and its cache is sound"
else
	bad "the next prove after a full disk" "$(said)"
fi

# ---- a memory budget smaller than one job ----
cat >budget.conf <<EOF
# INSECURE development key: fault tests only
[memory]
budget = 1M
critical_reserve = 1
[circuit.demo]
pce = $demo/demo.pce
key = $demo/demo.INSECURE-DEV.params
key_format = bellman
preload = true
EOF
start_daemon zkpd3.log --config budget.conf
run "$zkpctl" --connect "$addr" --json submit demo "$demo/demo.wtns"
id=$(json_field job_id out.txt)
sleep 1
run "$zkpctl" --connect "$addr" --json status
if grep -q '"state":"queued"' out.txt; then
	ok "a job larger than the memory budget waits queued"
else
	bad "a job larger than the budget waits queued" "$(said)"
fi
run "$zkpctl" --connect "$addr" cancel "$id"
if [ "$rc" -eq 0 ] && grep -qi cancelled out.txt; then
	ok "the waiting job is cancelled"
else
	bad "cancel the waiting job" "$(said)"
fi
run "$zkpctl" --connect "$addr" health
if [ "$rc" -eq 0 ]; then ok "the daemon still serves"; else bad "still serves" "$(said)"; fi
stop_zkpd

# ---- injected device faults ----
# A bellman proof makes 7 NTTs and 4 G1 MSMs: with a fault every 23rd call,
# sequential jobs fail now and then, at different stages.
ZKPD_INJECT_DEVICE_FAULT_EVERY=23 start_daemon zkpd4.log --demo-dir "$demo"
good=0
faulted=0
other=0
for i in $(seq 8); do
	run "$zkpctl" --connect "$addr" prove demo "$demo/demo.wtns" --out "dev$i.bin" \
		--public-json "dev$i.json"
	if [ "$rc" -eq 0 ] && valid_proof "$vk" "dev$i.bin" "dev$i.json"; then
		good=$((good + 1))
	elif [ "$rc" -eq 1 ] && grep -q ERR_DEVICE err.txt; then
		faulted=$((faulted + 1))
	else
		other=$((other + 1))
		echo "# job $i: $(said)"
	fi
done
if [ "$faulted" -ge 1 ] && [ "$good" -ge 4 ] && [ "$other" -eq 0 ]; then
	ok "injected device faults fail their jobs alone ($faulted failed with ERR_DEVICE, $good proved)"
else
	bad "injected device faults" "$good proved, $faulted ERR_DEVICE, $other other"
fi
run "$zkpctl" --connect "$addr" health
if [ "$rc" -eq 0 ]; then ok "the daemon serves after device faults"; else
	bad "serves after device faults" "$(said)"; fi
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
