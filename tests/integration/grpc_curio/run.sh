#!/usr/bin/env bash
# A Go client built like Curio's cuzk client (grpc-go, insecure credentials,
# 256 MiB limits, a 30-minute deadline, Prove only) against a real zkpd's
# cuzk.v1 service on a Unix socket: curio_client.go proves a 2 KiB PoRep C1
# in Curio's wrapper (the FFI's JSON, then re-encoded by encoding/json), a
# SnapDeals update with sector_size 0, two WindowPoSt partitions of one
# deadline under one request id, and a WinningPoSt at CRITICAL (INSECURE
# development keys, scripts/dev-key). Every proof is verified here with zkp.
# The client is built offline from Debian's golang-go,
# golang-google-grpc-dev and golang-google-protobuf-dev (GOPATH mode,
# /usr/share/gocode); without them the test is skipped (77), saying which.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test grpc-curio "$1" "$2"

gopath=/usr/share/gocode
missing=
command -v go >/dev/null || missing="$missing golang-go"
[ -d "$gopath/src/google.golang.org/grpc" ] || missing="$missing golang-google-grpc-dev"
[ -d "$gopath/src/google.golang.org/protobuf/types/dynamicpb" ] ||
	missing="$missing golang-google-protobuf-dev"
command -v protoc >/dev/null || missing="$missing protobuf-compiler"
if [ -n "$missing" ]; then
	echo "# SKIP: the Go client needs Debian's$missing (scripts/setup installs them)"
	exit 77
fi

# GOPATH mode: every import comes from Debian's packages; nothing is
# fetched. The build cache (grpc-go compiled once, about 40 s on 2 cores)
# is kept beside the development keys', so a fresh build tree reuses it.
export GO111MODULE=off GOPATH=$gopath GOFLAGS= GOPROXY=off \
	GOCACHE=${XDG_CACHE_HOME:-$HOME/.cache}/zkpd/go-build
protoc --include_imports --descriptor_set_out=proving.desc -I"$src/proto" \
	"$src/proto/cuzk/v1/proving.proto"
expect 0 "the Go client builds offline from Debian's packages" go build -o curio-client \
	"$src/tests/integration/grpc_curio/curio_client.go"
[ "$rc" -eq 0 ] || exit 1

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
# Two partitions of one deadline, as two Curio tasks see them: each its own
# sectors, both at partition index 0 of their task.
expect 0 "a WindowPoSt partition's vanilla proofs" "$zkp" post dev-vanilla --proof-type 5 \
	--random 3 --prover-id "$prover" --ticket "$ticket" --sector-ids 21,22 --randomness "$rnd" \
	-o window0
expect 0 "another partition's vanilla proofs" "$zkp" post dev-vanilla --proof-type 5 \
	--random 7 --prover-id "$prover" --ticket "$ticket" --sector-ids 31,32 --randomness "$rnd" \
	-o window1
expect 0 "a SnapDeals update's vanilla proof" "$zkp" snap dev-update --sector-size 2KiB \
	--random 5 --prover-id "$prover" --sector-id 5 --ticket "$ticket" --data-seed 6 -o up
field() { sed -n "s/.*\"$1\": \"\([0-9a-f]*\)\".*/\1/p" up/public.json; }

grpc_sock=$(dirname "$sock")/cuzk.sock
# The gRPC socket is owned like the framed ones: as root, by a group Curio's
# user would be in (nogroup here); otherwise by our own.
group=$(id -g)
if [ "$(id -u)" -eq 0 ] && getent group nogroup >/dev/null; then
	group=$(getent group nogroup | cut -d: -f3)
fi
cat >zkpd.ini <<EOF
[server]
listen = unix:$sock
socket_group = $group

[grpc]
listen = unix:$grpc_sock

[gpus]
devices = cpu

$(filecoin_circuit_ini porep-2k "$dir_porep_2k" porep_sector_size)
$(filecoin_circuit_ini post-winning-2k "$dir_post_winning_2k" winning_post_sector_size)
$(filecoin_circuit_ini post-window-2k "$dir_post_window_2k" window_post_sector_size)
$(filecoin_circuit_ini snap-2k "$dir_snap_2k" snap_sector_size)
EOF
expect 0 "the configuration passes --check-config" "$zkpd" --check-config zkpd.ini
check "--check-config has no note about Curio" "$(said)" test "$(grep -c '^note:' out.txt)" -eq 0
launch_zkpd zkpd.log --config zkpd.ini
ctl=("$zkpctl" --connect "unix:$sock")
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd starts with the gRPC listener" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi

check "the gRPC socket has server.socket_group and socket_mode" \
	"$(stat -c '%g %a' "$grpc_sock")" test "$(stat -c '%g %a' "$grpc_sock")" = "$group 660"

rc=0
timeout 900 ./curio-client -target "unix://$grpc_sock" -descriptors proving.desc \
	-c1 c1.json -window-a window0/sector-21.bin,window0/sector-22.bin \
	-window-b window1/sector-31.bin,window1/sector-32.bin -randomness "$rnd" \
	-winning winning/sector-24.bin -snap up/partition-0.bin \
	-snap-comms "$(field comm_r_old),$(field comm_d_new),$(field comm_r_new)" \
	-out . | tee go.txt || rc=$?
pass=$((pass + $(grep -c '^ok - ' go.txt || true)))
failed=$((failed + $(grep -c '^FAIL - ' go.txt || true)))
[ "$rc" -eq 0 ] || [ "$(grep -c '^FAIL - ' go.txt || true)" -gt 0 ] ||
	bad "curio-client ran to its end" "exit $rc"

vk() { echo "$1/$2.INSECURE-DEV.vk"; }
for p in porep-ffi porep-reencoded; do
	[ -s "$p.bin" ] || continue
	expect 0 "zkp porep verify accepts $p" "$zkp" porep verify --vk "$(vk "$dir_porep_2k" porep-2k)" \
		--c1 c1.json --proof "$p.bin" --prover-id "$prover" --sector-id 5
	check "$p: zkp porep verify says valid" "$(said)" grep -qx valid out.txt
done
if [ -s snap.bin ]; then
	expect 0 "zkp snap verify accepts the SnapDeals proof of sector_size 0" "$zkp" snap verify \
		--sector-size 2KiB --comm-r-old "$(field comm_r_old)" \
		--comm-d-new "$(field comm_d_new)" --comm-r-new "$(field comm_r_new)" \
		--vk "$(vk "$dir_snap_2k" snap-2k)" --proof snap.bin
	check "zkp snap verify says valid" "$(said)" has '^valid' out.txt
fi
# A PoSt proof against the public inputs of the job that made it (zkpctl
# await by the job id the gRPC answer named): its own partition's.
post_verify() { # NAME VK
	expect 0 "$1: its job's public inputs" "${ctl[@]}" await "$(cat "$1.job")" \
		--out "$1.framed.bin" --public-json "$1.json"
	check "$1: the framed result is the gRPC proof" "$(said)" cmp -s "$1.bin" "$1.framed.bin"
	expect 0 "zkp verify accepts $1 for its inputs" "$zkp" verify --vk "$2" --proof "$1.bin" \
		--public "$1.json"
	check "$1: zkp verify says valid" "$(said)" grep -qx valid out.txt
}
wvk=$(vk "$dir_post_window_2k" post-window-2k)
if [ -s window-a.bin ] && [ -s window-b.bin ]; then
	post_verify window-a "$wvk"
	post_verify window-b "$wvk"
	check "the two partitions' public inputs differ" "$(said)" \
		bash -c '! cmp -s window-a.json window-b.json'
	run "$zkp" verify --vk "$wvk" --proof window-a.bin --public window-b.json
	check "one partition's proof does not verify as the other's" "$(said)" \
		test "$rc" -ne 0 -a "$(cat out.txt)" != valid
fi
[ -s winning.bin ] && post_verify winning "$(vk "$dir_post_winning_2k" post-winning-2k)"
expect 0 "the metrics count the reused request id" "${ctl[@]}" metrics
check "zkpd_request_id_reused_total is 1" "$(said)" has '^zkpd_request_id_reused_total 1$' out.txt
check "the log names the reused request id" "$(grep -c 'came again with other inputs' zkpd.log)" \
	has 'request_id "wdpost-1000-0-\[.*came again with other inputs' zkpd.log
check "the WinningPoSt ran at CRITICAL" "$(grep 'circuit post-winning-2k' zkpd.log | head -2)" \
	has 'circuit post-winning-2k priority critical' zkpd.log
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
