#!/usr/bin/env bash
# How zkpd starts: it binds every listener before any circuit loads, so a
# second zkpd on a taken socket or HTTP port exits at once, naming the
# daemon that serves there; and the directories of its Unix sockets, which
# --check-config checks and zkpd creates only when the directory is its own.
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
	launch_http() { "$zkpd" --config http1.conf --listen "unix:$work/$1.sock" --demo-dir "$demo"; }
	launch_http h1 >h1.log 2>&1 &
	pids+=($!)
	if wait_healthy "$!" 300 "$zkpctl" --connect "unix:$work/h1.sock"; then
		run "$zkpd" --config http1.conf --listen "unix:$work/h2.sock" --demo-dir "$demo"
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

echo "start: $pass passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
