# Helpers shared by the shell tests in this directory (cli.sh, tls.sh,
# faults.sh, http.sh, scaleout.sh). Sourced, not run: it defines functions
# and the state they use, and does nothing else.
# shellcheck shell=bash

# --- paths and directories ----------------------------------------------

# set_paths BUILD_DIR WORK_DIR: sets $build (absolute), $work, $zkpd, $zkpctl, $zkp
set_paths() {
	build=$(cd "$1" && pwd)
	work=$2
	zkpd=$build/src/daemon/zkpd
	zkpd_hooks=$build/src/daemon/zkpd-test-hooks
	zkpctl=$build/src/daemon/zkpctl
	zkp=$build/src/tools/zkp
}

# make_work_dir: empties $work, enters it and makes $work absolute
make_work_dir() {
	rm -rf "$work"
	mkdir -p "$work"
	cd "$work"
	work=$(pwd)
}

# pick_sock NAME: $sock is zkpd.sock in $work, or in a new /tmp/zkpd-NAME.*
# ($sockdir, removed by cleanup) when that path passes the 107-byte limit
sockdir=
pick_sock() {
	sockdir=
	sock=$work/zkpd.sock
	if [ "${#sock}" -gt 100 ]; then
		sockdir=$(mktemp -d "/tmp/zkpd-$1.XXXXXX")
		sock=$sockdir/zkpd.sock
	fi
}

# --- results ---------------------------------------------------------------

pass=0
failed=0
# ok WHAT: counts and prints a passed check
ok() { pass=$((pass + 1)); echo "ok - $1"; }
# bad WHAT DETAILS: counts and prints a failed check
bad() { failed=$((failed + 1)); echo "FAIL - $1 ($2)"; }
# check WHAT DETAILS CMD...: ok when CMD succeeds, else bad with DETAILS
check() {
	local what=$1 details=$2
	shift 2
	if "$@"; then ok "$what"; else bad "$what" "$details"; fi
}
# has PATTERN FILE: FILE has a line matching PATTERN
has() { grep -q -- "$1" "$2"; }

# --- running commands -------------------------------------------------------

run_timeout=60
said_bytes=400
rc=0
# run CMD...: runs CMD (limited to $run_timeout s) with stdout in out.txt and
# stderr in err.txt, its exit status in $rc
run() {
	rc=0
	timeout "$run_timeout" "$@" >out.txt 2>err.txt || rc=$?
}
# said: the last run's exit status and the start of its output, for FAIL lines
said() { printf 'exit %s; stdout: %s; stderr: %s' "$rc" "$(head -c "$said_bytes" out.txt | tr '\n' ' ')" \
	"$(head -c "$said_bytes" err.txt | tr '\n' ' ')"; }
# expect CODE WHAT CMD...: runs CMD; ok when its exit status is CODE
expect() {
	local want=$1 what=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then ok "$what"; else bad "$what" "wanted exit $want; $(said)"; fi
}
# have_test_hooks: whether the build has zkpd-test-hooks (-DZKPD_TEST_HOOKS=ON:
# zkpd with test devices and fault injection read from the environment),
# as $zkpd_hooks
have_test_hooks() { [ -x "$zkpd_hooks" ]; }

# json_field NAME FILE: the value of the JSON member NAME (a number or a
# literal) in FILE
json_field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2"; }

# demo_circuit_ini DIR: the [circuit.demo] section for the demo circuit's
# files in DIR (INSECURE development key), preloaded
demo_circuit_ini() {
	printf '[circuit.demo]\npce = %s/demo.pce\nkey = %s/demo.INSECURE-DEV.params\n' "$1" "$1"
	printf 'key_format = bellman\npreload = true\n'
}

# progress_consistent FILE: zkpctl's progress lines in FILE (stderr, not a
# terminal) tell no stage time (the summary's stage lines do, once): every
# "STAGE finished" follows its "STAGE started", and a partition count is
# printed only once a partition is proved
progress_consistent() {
	awk '/: [a-z_]+ started$/ { started[$3] = 1 }
	     /: [a-z_]+ finished/ { if (!started[$3]) { print "no start: " $0; bad = 1 } }
	     /finished in / { print "a stage time in progress: " $0; bad = 1 }
	     /partitions proved: 0\// { print "a count of none: " $0; bad = 1 }
	     END { exit bad }' "$1"
}

# --- proofs -----------------------------------------------------------------

# verify PROOF PUBLIC WHAT: ok when `zkp verify` with the key $vk accepts PROOF
verify() {
	run "$zkp" verify --vk "$vk" --proof "$1" --public "$2"
	if [ "$rc" -eq 0 ] && has valid out.txt && ! has invalid out.txt; then ok "$3"; else
		bad "$3" "$(said)"; fi
}
# valid_proof VK PROOF PUBLIC: succeeds when `zkp verify` with VK says valid
valid_proof() {
	"$zkp" verify --vk "$1" --proof "$2" --public "$3" 2>/dev/null | grep -qx valid
}

# --- daemons ------------------------------------------------------------------

pid=
pids=()
# launch_zkpd LOG ARGS...: starts zkpd ARGS in the background, output in LOG, as $pid
launch_zkpd() {
	local log=$1
	shift
	"$zkpd" "$@" >"$log" 2>&1 &
	pid=$!
}
# wait_healthy PID TRIES CLIENT...: polls `CLIENT --timeout 2 health` every
# 0.1 s, at most TRIES times; fails when PID exits or it never answers
wait_healthy() {
	local p=$1 tries=$2
	shift 2
	for _ in $(seq "$tries"); do
		kill -0 "$p" 2>/dev/null || return 1
		if "$@" --timeout 2 health >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	return 1
}
# stop_zkpd: SIGTERM to $pid, SIGKILL if it still runs after 10 s; reaps it
stop_zkpd() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	[ -z "$pid" ] || wait "$pid" 2>/dev/null || true
	pid=
}
# cleanup: the EXIT trap: stops $pid, kills the processes in $pids, removes
# $sockdir, and exits with the script's status
cleanup() {
	local status=$? p
	stop_zkpd
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "$sockdir" ] || rm -rf "$sockdir"
	exit "$status"
}

# free_port: a free loopback TCP port
free_port() {
	if command -v python3 >/dev/null; then
		python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
		return
	fi
	# without python3: random ports until a connect fails (nothing listens)
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# --- test-only certificates ------------------------------------------------------

# pki_ca DIR NAME: a self-signed CA, DIR/NAME.key and DIR/NAME.pem
pki_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$1/$2.key" -out "$1/$2.pem" -subj "/CN=zkpd $2 (test only)" \
		-addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
# pki_leaf DIR NAME CA EXTENSIONS: a key and a certificate that CA signs
pki_leaf() {
	printf '%b\n' "$4" >"$1/$2.ext"
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$1/$2.key" -out "$1/$2.csr" -subj "/CN=zkpd $2 (test only)" 2>/dev/null
	openssl x509 -req -in "$1/$2.csr" -CA "$1/$3.pem" -CAkey "$1/$3.key" \
		-CAcreateserial -days 2 -out "$1/$2.pem" -extfile "$1/$2.ext" 2>/dev/null
}
# pki_make DIR: CAs ca and other-ca; server (ca, for 127.0.0.1 and
# localhost), client (ca) and stranger (other-ca) leaves; keys mode 0600
pki_make() {
	mkdir -p "$1"
	pki_ca "$1" ca
	pki_ca "$1" other-ca
	pki_leaf "$1" server ca 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
	pki_leaf "$1" client ca 'extendedKeyUsage=clientAuth'
	pki_leaf "$1" stranger other-ca 'extendedKeyUsage=clientAuth'
	chmod 600 "$1"/*.key
}

# --- Filecoin circuits -------------------------------------------------------------

# filecoin_test NAME BUILD_DIR WORK_DIR: the start of a Filecoin end-to-end
# test: set_paths, $src (the source tree), a fresh $work, $sock (pick_sock
# NAME), the cleanup trap and a 600 s limit per command
filecoin_test() {
	set_paths "$2" "$3"
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
	make_work_dir
	pick_sock "$1"
	trap cleanup EXIT
	run_timeout=600
}
# dev_keys CIRCUIT...: makes or finds scripts/dev-key's files of each
# circuit (porep-2k, snap-2k, post-window-2k, post-winning-2k), their
# directory in $dir_CIRCUIT (dashes as underscores); fails naming the first
# that scripts/dev-key could not make
dev_keys() {
	local k d
	for k in "$@"; do
		if ! d=$("$src/scripts/dev-key" "$k" "$build"); then
			bad "the $k development key is made or found in the cache" \
				"scripts/dev-key failed"
			return 1
		fi
		printf -v "dir_${k//-/_}" '%s' "$d"
	done
	ok "the development keys are made or found in the cache ($*)"
}

# filecoin_circuit_ini NAME DIR OPTION: the [circuit.NAME] section of the
# circuit DIR/NAME.pce with its INSECURE development key
# (scripts/dev-key's files), OPTION = 2K (porep_sector_size = 2K, ...),
# preloaded
filecoin_circuit_ini() {
	printf '[circuit.%s]\npce = %s/%s.pce\nkey = %s/%s.INSECURE-DEV.params\n' "$1" "$2" "$1" \
		"$2" "$1"
	printf 'key_format = bellman\n%s = 2K\npreload = true\n\n' "$3"
}

