#!/usr/bin/env bash
# The cuzk.v1 gRPC service (grpc.listen) of a real zkpd, called as Curio
# calls it: cuzk_test.py (Debian's python3-grpcio, stubs generated from our
# proto/cuzk/v1/proving.proto) proves WinningPoSts (INSECURE development
# keys, scripts/dev-key; the other kinds are proved and verified through
# gRPC by integration_grpc_curio), refuses a bad C1, SnapDeals update and
# WinningPoSt with the engine's reasons, checks
# request_id idempotency, Await timeouts, Cancel, deadlines, Preload/Evict,
# Status and Metrics, bearer tokens and an oversize message, then runs 200
# concurrent gRPC calls beside framed clients; with ZKPD_GRPC_FIGURES=1 it
# also times one proof and 300 status calls through both front ends (about
# 20 s more). The proofs it wrote are checked here with zkp; then a
# second zkpd serves gRPC on TCP with TLS (grpc.transport = tls) and client
# certificates.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test grpc "$1" "$2"
py=/usr/bin/python3

if ! "$py" -c 'import grpc, google.protobuf' 2>/dev/null || ! command -v protoc >/dev/null; then
	bad "python3-grpcio, python3-protobuf and protoc are installed" "run scripts/setup"
	exit 1
fi
mkdir gen
protoc --python_out=gen -I"$src/proto" "$src/proto/cuzk/v1/proving.proto" \
	"$src/proto/zkpd/v1/zkpd.proto"
ok "Python stubs generated from proto/cuzk/v1/proving.proto and proto/zkpd/v1/zkpd.proto"

dev_keys porep-2k post-winning-2k post-window-2k snap-2k || exit 1

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
seed=$(printf '%02x' $(seq 101 132) | tr -d '\n')
rnd=$(printf '%02x' $(seq 11 42) | tr -d '\n' | sed 's/..$/05/')
expect 0 "seal a 2 KiB sector (its C1)" "$zkp" porep seal --sector-size 2KiB --random 5 \
	--prover-id "$prover" --sector-id 5 --ticket "$ticket" --seed "$seed" \
	--mode interactive -o c1.json
expect 0 "a WinningPoSt vanilla proof" "$zkp" post dev-vanilla --proof-type 0 --random 3 \
	--prover-id "$prover" --ticket "$ticket" --sector-ids 24 --randomness "$rnd" -o winning
expect 0 "a SnapDeals update's vanilla proof" "$zkp" snap dev-update --sector-size 2KiB \
	--random 5 --prover-id "$prover" --sector-id 5 --ticket "$ticket" --data-seed 6 -o up
field() { sed -n "s/.*\"$1\": \"\([0-9a-f]*\)\".*/\1/p" up/public.json; }

head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >token
chmod 600 token
grpc_sock=$(dirname "$sock")/cuzk.sock
cat >zkpd.ini <<EOF
[server]
listen = unix:$sock
token_file = $work/token
journal_dir = $work/journal

[grpc]
listen = unix:$grpc_sock
max_message_bytes = 4M

[gpus]
devices = cpu

$(filecoin_circuit_ini porep-2k "$dir_porep_2k" porep_sector_size)
$(filecoin_circuit_ini post-winning-2k "$dir_post_winning_2k" winning_post_sector_size)
$(filecoin_circuit_ini post-window-2k "$dir_post_window_2k" window_post_sector_size)
$(filecoin_circuit_ini snap-2k "$dir_snap_2k" snap_sector_size)
EOF
launch_zkpd zkpd.log --config zkpd.ini
ctl=("$zkpctl" --connect "unix:$sock" --token-file token)
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd starts with the gRPC listener" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
check "zkpd says it serves cuzk.v1" "$(grep grpc zkpd.log | head -2)" has "serving cuzk.v1" zkpd.log
check "the gRPC socket has server.socket_mode" "$(stat -c %a "$grpc_sock")" \
	test "$(stat -c %a "$grpc_sock")" = 660

rc=0
timeout 900 "$py" "$src/tests/integration/grpc/cuzk_test.py" --target "unix:$grpc_sock" \
	--gen-dir gen --token "$(cat token)" --c1 c1.json --winning winning/sector-24.bin \
	--randomness "$rnd" --zkpctl "$zkpctl" --framed "unix:$sock" --token-file token \
	--out-dir . --max-message $((4 << 20)) --snap up/partition-0.bin \
	--snap-comms "$(field comm_r_old),$(field comm_d_new),$(field comm_r_new)" \
	$([ "${ZKPD_GRPC_FIGURES:-0}" = 1 ] && echo --figures) | tee py.txt ||
	rc=$?
pass=$((pass + $(grep -c '^ok - ' py.txt || true)))
failed=$((failed + $(grep -c '^FAIL - ' py.txt || true)))
[ "$rc" -eq 0 ] || [ "$(grep -c '^FAIL - ' py.txt || true)" -gt 0 ] ||
	bad "cuzk_test.py ran to its end" "exit $rc"

expect 0 "the framed client proves the same WinningPoSt with public inputs" "${ctl[@]}" post \
	post-winning-2k --proof-type 0 --randomness "$rnd" --out framed.bin --public-json win.json \
	winning/sector-24.bin
expect 0 "zkp verify accepts the gRPC WinningPoSt proof for those inputs" "$zkp" verify \
	--vk "$dir_post_winning_2k/post-winning-2k.INSECURE-DEV.vk" --proof grpc-winning.bin \
	--public win.json
check "zkp verify says valid" "$(said)" grep -qx valid out.txt
expect 0 "the daemon keeps serving" "${ctl[@]}" health
stop_zkpd
check "the gRPC socket is removed at exit" "$(ls "$(dirname "$grpc_sock")")" test ! -e "$grpc_sock"

# --- TLS with client certificates on a TCP gRPC listener -----------------------
pki=$work/pki-test-only
pki_make "$pki"
port=$(free_port)
cat >tls.ini <<EOF
[server]
listen = unix:$sock

[tls]
cert = $pki/server.pem
key = $pki/server.key
client_ca = $pki/ca.pem

[grpc]
listen = 127.0.0.1:$port
transport = tls

[gpus]
devices = cpu

$(filecoin_circuit_ini post-winning-2k "$dir_post_winning_2k" winning_post_sector_size)
EOF
launch_zkpd tls.log --config tls.ini
if ! wait_healthy "$pid" 300 "$zkpctl" --connect "unix:$sock"; then
	bad "zkpd starts with a TLS gRPC listener" "log: $(tail -5 tls.log | tr '\n' ' ')"
else
	check "it says TLS with client certificates" "$(grep grpc tls.log)" \
		has "127.0.0.1:$port (TLS, client certificates required)" tls.log
	tls_status() { # CLIENT|stranger|none|plain: prints OK or the status code
		"$py" - "$port" "$pki" "$1" gen <<'PYEOF'
import sys, grpc
port, pki, who, gen = sys.argv[1:]
sys.path.insert(0, gen)
from cuzk.v1 import proving_pb2 as pb
rd = lambda n: open("%s/%s" % (pki, n), "rb").read()
if who == "plain":
    ch = grpc.insecure_channel("127.0.0.1:" + port)
else:
    creds = grpc.ssl_channel_credentials(
        rd("ca.pem"), *((rd(who + ".key"), rd(who + ".pem")) if who != "none" else ()))
    ch = grpc.secure_channel("127.0.0.1:" + port, creds)
f = ch.unary_unary("/cuzk.v1.ProvingEngine/GetStatus",
                   request_serializer=pb.GetStatusRequest.SerializeToString,
                   response_deserializer=pb.GetStatusResponse.FromString)
try:
    f(pb.GetStatusRequest(), timeout=10)
    print("OK")
except grpc.RpcError as e:
    print(e.code().name)
PYEOF
	}
	check "a client with a certificate of the CA is served" "$(tls_status client)" \
		test "$(tls_status client)" = OK
	for who in stranger none plain; do
		got=$(tls_status "$who")
		check "a $who client is refused" "$got" test "$got" != OK -a -n "$got"
	done
	stop_zkpd
fi
grep '^figures ' py.txt || true

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
