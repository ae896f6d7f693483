#!/usr/bin/env bash
# zkpd and zkpctl end to end from the shell: zkpd's options and configuration
# checks, then zkpctl against a real zkpd serving the demo circuit (health,
# status, metrics, prove/submit/await/cancel/load/unload, idempotent
# submission, refusals and their exit codes, concurrent provers), the default
# socket's directory (refused unless ours, mode 0700, not a link), and a clean
# SIGTERM shutdown. Proofs are checked with `zkp verify`.
# Usage: cli.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
make_work_dir
demo=$work/demo
vk=$demo/demo.INSECURE-DEV.vk
pick_sock cli
trap cleanup EXIT

# --- zkpd options and configuration --------------------------------------

expect 0 "zkpd --version" "$zkpd" --version
check "zkpd --version names zkpd" "$(said)" has '^zkpd [0-9]' out.txt
expect 0 "zkpctl --version" "$zkpctl" --version
check "zkpctl --version names zkpctl" "$(said)" has '^zkpctl [0-9]' out.txt
expect 0 "zkp --version" "$zkp" --version
check "zkp --version names zkp" "$(said)" has '^zkp [0-9]' out.txt
for c in field ntt msm spmv prove pipeline porep load stall; do
	expect 0 "zkpd-bench $c --help" "$build/bench/zkpd-bench" "$c" --help
	check "zkpd-bench $c --help gives its usage" "$(said)" has "^usage: zkpd-bench $c" out.txt
done
expect 0 "zkpd --help" "$zkpd" --help
check "zkpd --help keeps every line within 80 columns" "$(said)" \
	test "$(awk 'length($0) > 80' out.txt | wc -l)" -eq 0
expect 0 "zkpd --help" "$zkpd" --help
check "zkpd --help prints usage" "$(said)" has 'usage: zkpd' out.txt
expect 2 "zkpd unknown option exits 2" "$zkpd" --no-such-option
check "zkpd unknown option names it" "$(said)" has 'no-such-option' err.txt

expect 0 "zkpd --print-default-config" "$zkpd" --print-default-config
cp out.txt default.conf
expect 0 "default config passes --check-config" "$zkpd" --check-config default.conf

printf '[server]\nmax_queued = 5\nno_such_key = 3\n' >unknown-key.conf
expect 2 "unknown key fails --check-config" "$zkpd" --check-config unknown-key.conf
check "unknown key message names FILE:LINE and the key" "$(said)" \
	grep -q 'unknown-key.conf:3.*no_such_key' err.txt

printf '[server]\nmax_queued = banana\n' >bad-value.conf
expect 2 "bad value fails --check-config" "$zkpd" --check-config bad-value.conf
check "bad value message names FILE:LINE and the key" "$(said)" \
	grep -q 'bad-value.conf:2.*max_queued' err.txt

printf '[server]\nmax_queued = 0\n' >out-of-range.conf
expect 2 "out-of-range value fails --check-config" "$zkpd" --check-config out-of-range.conf
check "out-of-range message names FILE:LINE and the key" "$(said)" \
	grep -q 'out-of-range.conf:2.*max_queued' err.txt

expect 0 "zkpd --print-config-doc" "$zkpd" --print-config-doc
check "docs/config.md equals --print-config-doc" "diff: $(diff out.txt "$src/docs/config.md" | head -5 | tr '\n' ' ')" \
	cmp -s out.txt "$src/docs/config.md"

# --- the demo daemon -----------------------------------------------------

launch_zkpd zkpd.log --listen "unix:$sock" --demo-dir "$demo"
if ! wait_healthy "$pid" 300 "$zkpctl" --connect "unix:$sock"; then
	bad "zkpd starts with the demo circuit" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
ok "zkpd starts with the demo circuit"
ctl=("$zkpctl" --connect "unix:$sock")

# the demo's files exist now, so a config naming a missing pce next to a real
# key can fail only on the pce
printf '[circuit.x]\npce = %s\nkey = %s\nkey_format = bellman\n' \
	"$demo/demo.pce" "$demo/demo.INSECURE-DEV.params" >circuit.conf
expect 0 "config naming the demo files passes --check-config" "$zkpd" --check-config circuit.conf
printf '[circuit.x]\npce = %s\nkey = %s\nkey_format = bellman\n' \
	"$work/missing.pce" "$demo/demo.INSECURE-DEV.params" >missing-pce.conf
expect 2 "config naming a missing pce fails --check-config" "$zkpd" --check-config missing-pce.conf
check "missing pce message names the file" "$(said)" has 'missing.pce' err.txt
# No GPU 63 on any machine that runs this test.
printf '[gpus]\ndevices = 63\n' >absent-gpu.conf
expect 2 "a GPU that is not present fails --check-config" "$zkpd" --check-config absent-gpu.conf
check "its message names the GPU" "$(said)" has 'GPU 63 is not present' err.txt
# gRPC has its own transport: TLS there is valid, but Curio cannot reach it
printf '[tls]\ncert = %s\nkey = %s\n[grpc]\nlisten = 127.0.0.1:9820\ntransport = tls\n' \
	"$work/c.pem" "$work/k.pem" >grpc-tls.conf
expect 0 "gRPC over TLS passes --check-config" "$zkpd" --check-config grpc-tls.conf
check "--check-config says Curio cannot connect over TLS" "$(said)" \
	has '^note: grpc.transport = tls: Curio' out.txt
printf '[grpc]\nlisten = 0.0.0.0:9820\n' >grpc-open.conf
expect 2 "plaintext gRPC on a network address fails --check-config" "$zkpd" \
	--check-config grpc-open.conf
check "its message names the option that allows it" "$(said)" \
	has 'grpc.allow_insecure_plaintext_network = true' err.txt
# A gRPC address that cannot be bound (a port another process holds): one
# line naming it and the reason
port=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); print(flush=True)
time.sleep(60)' "$port" >holder.txt &
holder=$!
pids+=("$holder")
for _ in $(seq 50); do [ -s holder.txt ] && break; sleep 0.1; done
printf '[server]\nlisten = unix:%s/bind.sock\n[grpc]\nlisten = 127.0.0.1:%s\n' "$work" "$port" \
	>grpc-bind.conf
printf '[gpus]\ndevices = cpu\n' >>grpc-bind.conf
run "$zkpd" --config grpc-bind.conf
kill "$holder" 2>/dev/null || true
check "zkpd stops when gRPC cannot bind" "exit $rc" test "$rc" -ne 0 -a "$rc" -ne 124
check "the error names the address and the reason on one line" "$(said)" \
	has "cannot listen on 127.0.0.1:$port: Address already in use" err.txt
check "no multi-line gRPC report" "$(said)" test "$(grep -c -v 'zkpd\[' err.txt)" -eq 0

expect 0 "health" "${ctl[@]}" health
expect 0 "status" "${ctl[@]}" status
check "status lists the demo circuit" "$(said)" grep -q '^demo ' out.txt
expect 0 "status --json" "${ctl[@]}" --json status
check "status --json names the demo circuit" "$(said)" has '"name":"demo"' out.txt
expect 0 "metrics" "${ctl[@]}" metrics
check "metrics has zkpd_jobs_total" "$(said)" has '^zkpd_jobs_total' out.txt

w=$demo/demo.wtns
expect 0 "prove --out --public-json" "${ctl[@]}" prove demo "$w" --out p.bin --public-json pub.json
check "proof is 192 bytes" "size $(stat -c %s p.bin 2>/dev/null || echo none)" \
	test "$(stat -c %s p.bin 2>/dev/null || echo 0)" -eq 192
verify p.bin pub.json "zkp verify accepts the daemon's proof"

expect 0 "prove --proof-json" "${ctl[@]}" prove demo "$w" --proof-json proof.json --public-json pub2.json
check "proof.json has pi_a" "$(head -c 200 proof.json 2>/dev/null | tr '\n' ' ')" has '"pi_a"' proof.json
verify proof.json pub2.json "zkp verify accepts the daemon's proof.json"

expect 0 "submit" "${ctl[@]}" submit demo "$w"
id=$(tr -d ' \n' <out.txt)
check "submit prints a job id" "$(said)" grep -Eq '^[0-9]+$' <<<"$id"
expect 0 "await the submitted job" "${ctl[@]}" await "$id" --out a.bin --public-json apub.json
verify a.bin apub.json "awaited proof verifies"

expect 0 "prove --witness-path" "${ctl[@]}" prove demo --witness-path "$w" --out wp.bin --public-json wpub.json
verify wp.bin wpub.json "proof from --witness-path verifies"

expect 0 "submit --request-id" "${ctl[@]}" --json submit demo "$w" --request-id cli-req-1
id1=$(json_field job_id out.txt)
expect 0 "submit --request-id again" "${ctl[@]}" --json submit demo "$w" --request-id cli-req-1
id2=$(json_field job_id out.txt)
check "same --request-id gives the same job" "ids '$id1' and '$id2'" test -n "$id1" -a "$id1" = "$id2"
check "repeated --request-id attaches" "$(said)" has '"attached":true' out.txt
expect 0 "await the request-id job" "${ctl[@]}" await "$id1" --out r.bin
# The same --request-id with other witness bytes is another request: a new
# job (counted), and the first stays reachable by its id.
cp "$w" other.wtns
printf '\001' | dd of=other.wtns bs=1 seek=$(($(stat -c %s other.wtns) - 1)) conv=notrunc \
	2>/dev/null
expect 0 "submit other inputs under the same --request-id" "${ctl[@]}" --json submit demo \
	other.wtns --request-id cli-req-1
id3=$(json_field job_id out.txt)
check "other inputs do not attach" "$(said)" has '"attached":false' out.txt
check "other inputs get a new job" "ids '$id1' and '$id3'" test -n "$id3" -a "$id3" != "$id1"
run "${ctl[@]}" await "$id3"
expect 0 "the first job is still there by its id" "${ctl[@]}" await "$id1" --out r2.bin
check "with its proof" "$(said)" cmp -s r.bin r2.bin
expect 0 "metrics after the reused request id" "${ctl[@]}" metrics
check "zkpd_request_id_reused_total counts it" "$(said)" \
	has '^zkpd_request_id_reused_total 1$' out.txt

expect 0 "cancel a finished job" "${ctl[@]}" cancel "$id1"
check "cancel reports the finished state" "$(said)" grep -qi 'done' out.txt
expect 0 "cancel --json a finished job" "${ctl[@]}" --json cancel "$id1"
check "cancel --json reports state done" "$(said)" has '"state":"done"' out.txt

expect 0 "load demo (already loaded)" "${ctl[@]}" load demo
expect 0 "unload demo while idle" "${ctl[@]}" unload demo
run "${ctl[@]}" --json status
check "demo unloaded in status" "$(said)" has '"name":"demo","loaded":false' out.txt
expect 0 "prove after unload (lazy load)" "${ctl[@]}" prove demo "$w" --out l.bin --public-json lpub.json
verify l.bin lpub.json "proof after lazy load verifies"

expect 5 "unknown circuit exits 5" "${ctl[@]}" prove no-such-circuit "$w" --out x.bin
check "unknown circuit says ERR_NOT_FOUND" "$(said)" has 'ERR_NOT_FOUND' err.txt

head -c 1000 "$w" >trunc.wtns
expect 1 "truncated witness exits 1" "${ctl[@]}" prove demo trunc.wtns --out x.bin
check "truncated witness reports the decoder's error" "$(said)" \
	grep -Eq 'ERR_(TRUNCATED|FORMAT|BAD_LENGTH)' err.txt

expect 2 "prove without arguments exits 2" "${ctl[@]}" prove
expect 2 "unknown command exits 2" "${ctl[@]}" no-such-command
expect 2 "unknown option exits 2" "${ctl[@]}" --no-such-option health
expect 2 "bad priority exits 2" "${ctl[@]}" prove demo "$w" --priority urgent
expect 2 "unreadable witness file exits 2" "${ctl[@]}" prove demo "$work/no-such.wtns"
expect 3 "--connect to a missing socket exits 3" \
	"$zkpctl" --connect "unix:${sock%/*}/no-such.sock" health

pids=()
for i in 1 2 3 4; do
	timeout 120 "$zkpctl" --connect "unix:$sock" prove demo "$w" --out "c$i.bin" \
		--public-json "c$i.json" >"c$i.out" 2>"c$i.err" &
	pids+=($!)
done
for i in 1 2 3 4; do
	crc=0
	wait "${pids[$((i - 1))]}" || crc=$?
	if [ "$crc" -eq 0 ]; then ok "concurrent prove $i"; else
		bad "concurrent prove $i" "exit $crc; stderr: $(tail -c 300 "c$i.err" | tr '\n' ' ')"; fi
	[ "$crc" -ne 0 ] || verify "c$i.bin" "c$i.json" "concurrent proof $i verifies"
done

run "${ctl[@]}" metrics
check "metrics count the finished jobs" "$(said)" grep -Eq '^zkpd_jobs_total\{state="done"\} [1-9]' out.txt

# --- the default socket's directory ----------------------------------------

# Without XDG_RUNTIME_DIR the default socket lies in ${TMPDIR:-/tmp}/zkpd-UID.
# A directory there that is not ours and private (another user may have made
# it first, to receive our witnesses) makes zkpd refuse to start and zkpctl
# refuse to use it; one zkpd makes itself is mode 0700.
tdir=$(mktemp -d /tmp/zkpd-tmpdir.XXXXXX)
ddir=$tdir/zkpd-$(id -u)
dflt=(env -u XDG_RUNTIME_DIR -u ZKPD_ADDRESS TMPDIR="$tdir")
mkdir -m 0777 "$ddir"
chmod 0777 "$ddir"
expect 1 "zkpd refuses a default socket directory of mode 0777" \
	"${dflt[@]}" timeout 60 "$zkpd" --demo-dir "$demo"
check "it names the directory and its mode" "$(said)" has "$ddir has mode 0777" err.txt
expect 3 "zkpctl refuses it too (exit 3)" "${dflt[@]}" "$zkpctl" health
check "zkpctl says why and what to give" "$(said)" \
	has "not using the default socket: $ddir has mode 0777.*--connect" err.txt
rmdir "$ddir"
mkdir -m 0700 "$tdir/elsewhere"
ln -s "$tdir/elsewhere" "$ddir"
expect 1 "zkpd refuses a symbolic link as the default socket directory" \
	"${dflt[@]}" timeout 60 "$zkpd" --demo-dir "$demo"
check "it says it is a symbolic link" "$(said)" has "$ddir is a symbolic link" err.txt
expect 3 "zkpctl refuses the link too" "${dflt[@]}" "$zkpctl" health
rm "$ddir"
"${dflt[@]}" "$zkpd" --demo-dir "$demo" >zkpd-default.log 2>&1 &
dpid=$!
pids+=("$dpid")
if wait_healthy "$dpid" 300 "${dflt[@]}" "$zkpctl"; then
	ok "zkpd serves on the default socket in a directory it made"
	check "that directory is mode 0700" "stat: $(stat -c %a "$ddir")" \
		test "$(stat -c %a "$ddir")" = 700
else
	bad "zkpd serves on the default socket in a directory it made" \
		"log: $(tail -3 zkpd-default.log | tr '\n' ' ')"
fi
kill -TERM "$dpid" 2>/dev/null || true
wait "$dpid" 2>/dev/null || true
rm -rf "$tdir"

# --- SIGTERM ---------------------------------------------------------------

kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
	bad "zkpd exits on SIGTERM" "still running after 10 s"
else
	zrc=0
	wait "$pid" || zrc=$?
	pid=
	if [ "$zrc" -eq 0 ]; then ok "zkpd exits 0 on SIGTERM"; else
		bad "zkpd exits 0 on SIGTERM" "exit $zrc; log: $(tail -3 zkpd.log | tr '\n' ' ')"; fi
	check "zkpd removes its socket" "$sock still exists" test ! -e "$sock"
fi

echo "cli: $pass passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
