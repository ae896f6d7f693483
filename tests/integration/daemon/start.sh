#!/usr/bin/env bash
# How zkpd starts: it binds every listener before any circuit loads, so a
# second zkpd on a taken socket or HTTP port exits at once, naming the
# daemon that serves there; and the directories of its Unix sockets, which
# --check-config checks (exists, usable, the group let in when socket_mode
# lets it in) and zkpd creates only when the directory is its own. And
# errors that point the way: zkpctl grpc-status (GetStatus over gRPC, as
# Curio calls it), an unknown circuit listing the configured ones, a C1
# given to zkpctl prove pointing to zkpctl porep.
# Loads are held with zkpd-test-hooks' ZKPD_TEST_LOAD_WAIT_FILE, so the order
# of events is checked, never a time.
# Usage: start.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
make_work_dir
demo=$work/demo
pick_sock start
trap cleanup EXIT
if ! have_test_hooks; then
	echo "start: skipped: needs zkpd-test-hooks (-DZKPD_TEST_HOOKS=ON)"
	exit 77
fi
ctl=("$zkpctl" --connect "unix:$sock")
release=$work/release-loads

# --- bind first, load after --------------------------------------------------

# The demo daemon makes the demo circuit's files, then goes away.
launch_zkpd demo.log --listen "unix:$sock" --demo-dir "$demo"
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "the demo daemon starts" "log: $(tail -5 demo.log | tr '\n' ' ')"
	exit 1
fi
stop_zkpd

{
	printf '[server]\nlisten = unix:%s\n\n' "$sock"
	demo_circuit_ini "$demo"
} >held.conf
# The first daemon serves while its preload waits: it bound before loading.
ZKPD_TEST_LOAD_WAIT_FILE=$release "$zkpd_hooks" --config held.conf >first.log 2>&1 &
pid=$!
first=$pid
if wait_healthy "$pid" 300 "${ctl[@]}"; then ok "zkpd answers while its preload waits"; else
	bad "zkpd answers while its preload waits" "log: $(tail -5 first.log | tr '\n' ' ')"; fi
check "its preload has begun and waits" "log: $(tail -5 first.log | tr '\n' ' ')" \
	has 'load waits for' first.log
check "the listener was bound before the load began" "log: $(tr '\n' ' ' <first.log)" \
	test "$(grep -n 'listening on unix:' first.log | head -1 | cut -d: -f1)" \
	-lt "$(grep -n 'load waits for' first.log | head -1 | cut -d: -f1)"

# A second daemon on the same socket, its own preload held the same way:
# it must exit before any load of its own begins.
ZKPD_TEST_LOAD_WAIT_FILE=$release run "$zkpd_hooks" --config held.conf
check "a second zkpd on the taken socket exits 1" "$(said)" test "$rc" -eq 1
check "it names the running zkpd, its pid and version" "$(said)" \
	has "another zkpd (pid $first, version [0-9][^)]*) is serving on unix:$sock" err.txt
check "it began no load" "$(said)" bash -c "! grep -q 'load waits for\|loaded:' err.txt"
check "the first daemon's load is still waiting" "log: $(tail -3 first.log | tr '\n' ' ')" \
	bash -c "! grep -q 'circuit demo loaded' first.log"

# A taken HTTP port: a hint that a zkpd may be running there already.
if port=$(free_port); then
	printf '[http]\nlisten = 127.0.0.1:%s\n' "$port" >http1.conf
	"$zkpd" --config http1.conf --listen "unix:$work/h1.sock" >h1.log 2>&1 &
	pids+=($!)
	if wait_healthy "$!" 300 "$zkpctl" --connect "unix:$work/h1.sock"; then
		run "$zkpd" --config http1.conf --listen "unix:$work/h2.sock"
		check "a second zkpd on a taken HTTP port exits 1" "$(said)" test "$rc" -eq 1
		check "it says a zkpd may already be running" "$(said)" \
			has "http.listen 127.0.0.1:$port: cannot listen: .*a zkpd may already be running" err.txt
	else
		bad "a zkpd with [http] starts" "log: $(tail -3 h1.log | tr '\n' ' ')"
	fi
fi

touch "$release"
for _ in $(seq 600); do has 'circuit demo loaded' first.log && break; sleep 0.1; done
check "the first daemon's load ends once released" "log: $(tail -3 first.log | tr '\n' ' ')" \
	has 'circuit demo loaded' first.log
stop_zkpd

# --- errors that point the way ---------------------------------------------------

# The demo daemon again, with the gRPC service (cuzk.v1) and a token for it.
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >token
chmod 600 token
{
	printf '[server]\nlisten = unix:%s\ntoken_file = %s/token\n\n' "$sock" "$work"
	printf '[grpc]\nlisten = unix:%s/cuzk.sock\nrequire_token = true\n\n' "$work"
	demo_circuit_ini "$demo"
} >grpc.conf
launch_zkpd grpc.log --config grpc.conf
tctl=("$zkpctl" --connect "unix:$sock" --token-file "$work/token")
if wait_healthy "$pid" 300 "${tctl[@]}"; then
	expect 0 "zkpctl grpc-status calls GetStatus over gRPC" "$zkpctl" --token-file token \
		grpc-status "unix:$work/cuzk.sock"
	check "it lists the configured circuit" "$(said)" grep -q '^circuit demo ' out.txt
	expect 0 "zkpctl --json grpc-status" "$zkpctl" --json --token-file token \
		grpc-status "unix:$work/cuzk.sock"
	check "its JSON names the circuit" "$(said)" has '"circuit_id":"demo"' out.txt
	expect 5 "grpc-status without the required token exits 5" "$zkpctl" \
		grpc-status "unix:$work/cuzk.sock"
	check "it gives gRPC's status" "$(said)" has 'gRPC status 16' err.txt
	expect 3 "grpc-status where nothing serves exits 3" "$zkpctl" \
		grpc-status "unix:$work/no-such.sock"
	check "it says no gRPC service answers there" "$(said)" has 'no gRPC service answers' err.txt

	# Progress: no stage time but the summary's, every finished begun.
	expect 0 "zkpctl prove on the demo circuit" "${tctl[@]}" prove demo "$demo/demo.wtns" \
		--out p.bin
	check "its progress tells no stage time and begins every stage it ends" \
		"$(progress_consistent err.txt; tr '\n' ' ' <err.txt)" progress_consistent err.txt
	check "its progress says when verify started" "$(said)" has ': verify started$' err.txt
	check "its summary has one line per stage" "$(said)" \
		test "$(grep -c '^  stage ' out.txt)" -eq 6

	# An unknown circuit: the message lists the configured ones.
	expect 5 "an unknown circuit exits 5" "${tctl[@]}" prove porep-32g "$demo/demo.wtns"
	check "the message lists the configured circuits" "$(said)" \
		has 'no circuit named "porep-32g" (configured: demo)' err.txt
	# A C1 (JSON) given to prove: the way to zkpctl porep.
	printf '{"registered_proof":"StackedDrg2KiBV1_1","seed":[1,2,3]}\n' >c1.json
	expect 2 "a C1 given to zkpctl prove is refused" "${tctl[@]}" prove demo c1.json
	check "the message says to use zkpctl porep" "$(said)" \
		has 'c1.json is JSON, not a witness.*zkpctl porep demo c1.json' err.txt
else
	bad "zkpd starts with [grpc]" "log: $(tail -3 grpc.log | tr '\n' ' ')"
fi
stop_zkpd

# --- socket directories --------------------------------------------------------

# listen_conf FILE LISTEN [MODE]: a configuration with only server.listen
# (and server.socket_mode)
listen_conf() {
	printf '[server]\nlisten = %s\nsocket_mode = %s\n' "$2" "${3:-0660}" >"$1"
}
# A directory that is not zkpd's own is never made, not even by root.
missing=/nonexistent-zkpd-test-$$
listen_conf nodir.conf "unix:$missing/zkpd.sock"
expect 2 "--check-config refuses a socket in a missing directory" "$zkpd" --check-config nodir.conf
check "it names the option and the directory" "$(said)" \
	has "server.listen: directory $missing does not exist" err.txt
expect 1 "zkpd does not start there" timeout 60 "$zkpd" --config nodir.conf
check "it says zkpd makes only its own directory" "$(said)" \
	has "zkpd makes only a directory named zkpd" err.txt
check "it created no directory" "$missing exists" test ! -e "$missing"
printf '[grpc]\nlisten = unix:%s/cuzk.sock\n' "$missing" >grpcdir.conf
expect 2 "--check-config checks grpc.listen's directory" "$zkpd" --check-config grpcdir.conf
check "it names grpc.listen" "$(said)" has "grpc.listen: directory $missing does not exist" err.txt

# Its own runtime directory (named zkpd..., its parent there) is made, with
# the group's access when socket_mode gives the group access.
listen_conf rt.conf "unix:$work/zkpd-rt/zkpd.sock" 0660
expect 0 "--check-config accepts a runtime directory zkpd will make" "$zkpd" --check-config rt.conf
check "it says the directory is made at start" "$(said)" has "is made at start" out.txt
launch_zkpd rt.log --config rt.conf --demo-dir "$demo"
if wait_healthy "$pid" 300 "$zkpctl" --connect "unix:$work/zkpd-rt/zkpd.sock"; then
	ok "zkpd makes its runtime directory and serves there"
	check "with socket_mode 0660 it is mode 0750" "mode $(stat -c %a "$work/zkpd-rt")" \
		test "$(stat -c %a "$work/zkpd-rt")" = 750
else
	bad "zkpd makes its runtime directory and serves there" "log: $(tail -3 rt.log | tr '\n' ' ')"
fi
stop_zkpd
listen_conf rt2.conf "unix:$work/zkpd-rt2/zkpd.sock" 0600
launch_zkpd rt2.log --config rt2.conf --demo-dir "$demo"
if wait_healthy "$pid" 300 "$zkpctl" --connect "unix:$work/zkpd-rt2/zkpd.sock"; then
	check "with socket_mode 0600 it is mode 0700" "mode $(stat -c %a "$work/zkpd-rt2")" \
		test "$(stat -c %a "$work/zkpd-rt2")" = 700
else
	bad "zkpd serves in a private runtime directory" "log: $(tail -3 rt2.log | tr '\n' ' ')"
fi
stop_zkpd

# An existing directory that keeps the socket's group out.
mkdir -m 0700 "$work/private"
chmod 0700 "$work/private"
listen_conf private.conf "unix:$work/private/zkpd.sock" 0660
expect 2 "--check-config refuses a directory that keeps socket_mode's group out" \
	"$zkpd" --check-config private.conf
check "it names the directory, its mode and socket_mode" "$(said)" \
	has "$work/private (group gid [0-9]*, mode 0700) keeps out the socket's group.*0660" err.txt
listen_conf private2.conf "unix:$work/private/zkpd.sock" 0600
expect 0 "the same directory passes with socket_mode 0600" "$zkpd" --check-config private2.conf

# A runtime directory its user cannot make (/run/zkpd without systemd): the
# message says how to make it. As root, the check runs as nobody.
mkdir -m 0755 "$work/ro"
chmod 0555 "$work/ro"
listen_conf ro.conf "unix:$work/ro/zkpd/zkpd.sock"
chmod 0644 ro.conf
as_user=()
if [ "$(id -u)" -eq 0 ]; then
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${as_user[@]}" true 2>/dev/null || as_user=(skip)
fi
if [ "${as_user[0]:-}" != skip ]; then
	expect 2 "--check-config refuses a runtime directory its user cannot make" \
		"${as_user[@]}" "$zkpd" --check-config "$work/ro.conf"
	check "it says how: RuntimeDirectory= or install -d" "$(said)" \
		has "RuntimeDirectory=zkpd.*install -d -o .* -m 0750 $work/ro/zkpd" err.txt
	expect 1 "zkpd does not start there" "${as_user[@]}" timeout 60 "$zkpd" --config "$work/ro.conf"
	check "its message says how to make the directory" "$(said)" \
		has "cannot create directory $work/ro/zkpd: .*RuntimeDirectory=zkpd" err.txt
fi
chmod 0755 "$work/ro"

echo "start: $pass passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
