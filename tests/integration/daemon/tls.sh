#!/usr/bin/env bash
# TLS and authentication end to end: zkpd serving a small circuit on a Unix
# socket and a TLS port, zkpctl against it. Checks: a proof over TLS that
# `zkp verify` accepts; a plaintext client on the TLS port and a client
# trusting another CA both fail cleanly (exit 3) while the daemon keeps
# serving; with tls.client_ca, no client certificate or one from another CA
# fails and the right one works; with server.token_file, a missing or wrong
# token is refused with ERR_DENIED (exit 5) and the connection closed, the
# right one works, on TCP and on the Unix socket; before Authenticate only
# small frames are taken, and unauthenticated connections together hold at
# most server.preauth_buffer_bytes; a tcp: address without TLS
# and without server.tcp_plaintext fails --check-config; socket_mode,
# socket_owner and socket_group reach the socket file.
#
# Every key and certificate here is made at run time in WORK_DIR by the
# openssl command, for this test only.
# Usage: tls.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"

command -v openssl >/dev/null || { echo "SKIP: no openssl command"; exit 77; }

make_work_dir
pick_sock tls
trap cleanup EXIT

# --- test-only keys and certificates -----------------------------------

pki=$work/pki-test-only
pki_make "$pki"
check "test certificates made" "openssl failed" test -s "$pki/stranger.pem"

printf 'test-only-token-%s\n' "$RANDOM$RANDOM" >token
printf 'not-the-token\n' >wrong-token
chmod 600 token wrong-token

# --- a small circuit ---------------------------------------------------

run "$zkp" synth --shape porep --constraints 1000 -o c.pce --witness c.wtns
check "zkp synth" "$(said)" test "$rc" -eq 0
run "$zkp" setup c.pce -o c
check "zkp setup (INSECURE development key, test only)" "$(said)" test "$rc" -eq 0
vk=$work/c.INSECURE-DEV.vk

# write_conf FILE EXTRA...: a config serving circuit c on the socket and a
# TLS port ($port), with EXTRA lines added to [server] and [tls]
write_conf() {
	local f=$1 server=$2 tls=$3
	printf '# INSECURE development key: test only\n[server]\nlisten = unix:%s, tcp:127.0.0.1:%s\nsocket_mode = 0600\nidle_timeout = 20s\n%b\n[tls]\ncert = %s\nkey = %s\n%b\n[synthesis]\nthreads = 2\n[circuit.c]\npce = c.pce\nkey = c.INSECURE-DEV.params\nkey_format = bellman\npreload = true\n' \
		"$sock" "$port" "$server" "$pki/server.pem" "$pki/server.key" "$tls" >"$f"
}

# start_zkpd CONF LOG CLIENT...: starts zkpd and waits until the client
# command CLIENT gets an answer to health
start_zkpd() {
	local conf=$1 log=$2
	shift 2
	launch_zkpd "$log" --config "$conf"
	wait_healthy "$pid" 300 "$@" && return 0
	bad "zkpd starts with $conf" "log: $(tail -5 "$log" | tr '\n' ' ')"
	exit 1
}

# --- configuration checks ------------------------------------------------

printf '[server]\nmax_queued = 5\nlisten = tcp:127.0.0.1:9\n' >plain-tcp.conf
expect 2 "tcp: without TLS or tcp_plaintext fails --check-config" "$zkpd" --check-config plain-tcp.conf
check "the message names FILE:LINE and what to set" "$(said)" \
	grep -q 'plain-tcp.conf:3: server.listen: tcp:127.0.0.1:9 without TLS (expected tls.cert and tls.key, or server.tcp_plaintext = true' err.txt
printf '[server]\nlisten = tcp:127.0.0.1:9\ntcp_plaintext = true\n' >plaintext-ok.conf
expect 0 "tcp_plaintext = true passes --check-config" "$zkpd" --check-config plaintext-ok.conf
printf '[server]\nlisten = tcp:127.0.0.1:9\n[tls]\ncert = %s\n' "$pki/server.pem" >cert-only.conf
expect 2 "tls.cert without tls.key fails --check-config" "$zkpd" --check-config cert-only.conf
check "the message names tls.key" "$(said)" grep -q 'cert-only.conf:4: tls.cert: set without tls.key' err.txt

# --- TLS, no client certificates ----------------------------------------

port=$(free_port)
tls=("$zkpctl" --connect "tcp:127.0.0.1:$port" --tls-ca "$pki/ca.pem")
write_conf tls.conf "socket_owner = $(id -u)\nsocket_group = $(id -g)" ''
expect 0 "TLS config passes --check-config" "$zkpd" --check-config tls.conf
start_zkpd tls.conf zkpd-tls.log "${tls[@]}"
ok "zkpd starts with TLS"

check "socket_mode 0600 applied" "stat: $(stat -c '%a %u %g' "$sock")" \
	test "$(stat -c %a "$sock")" = 600
check "socket_owner and socket_group applied" "stat: $(stat -c '%u %g' "$sock")" \
	test "$(stat -c '%u %g' "$sock")" = "$(id -u) $(id -g)"

expect 0 "prove over TLS" "${tls[@]}" prove c c.wtns --out p.bin --public-json pub.json
verify p.bin pub.json "the proof made over TLS verifies"
expect 0 "a name in the certificate (localhost) is accepted" \
	"$zkpctl" --connect "tcp:localhost:$port" --tls-ca "$pki/ca.pem" health

expect 3 "plaintext client on the TLS port fails (exit 3)" \
	"$zkpctl" --connect "tcp:127.0.0.1:$port" --timeout 10 health
expect 3 "client trusting another CA fails (exit 3)" \
	"$zkpctl" --connect "tcp:127.0.0.1:$port" --tls-ca "$pki/other-ca.pem" health
check "it says the certificate is not trusted" "$(said)" has 'not trusted' err.txt
expect 0 "the daemon keeps serving over TLS" "${tls[@]}" health
expect 0 "and on the Unix socket" "$zkpctl" --connect "unix:$sock" health
check "the daemon logged the TLS failures" "log: $(tail -5 zkpd-tls.log | tr '\n' ' ')" \
	grep -q 'TLS handshake' zkpd-tls.log
stop_zkpd

# --- client certificates and a bearer token -----------------------------

port=$(free_port)
write_conf auth.conf "token_file = $work/token\npreauth_max_frame_bytes = 8K\npreauth_buffer_bytes = 64K" \
	"client_ca = $pki/ca.pem"
mtls=("$zkpctl" --connect "tcp:127.0.0.1:$port" --tls-ca "$pki/ca.pem"
	--tls-cert "$pki/client.pem" --tls-key "$pki/client.key")
start_zkpd auth.conf zkpd-auth.log "${mtls[@]}" --token-file "$work/token"
ok "zkpd starts with client certificates and a token"

expect 3 "no client certificate fails (exit 3)" "${tls[@]}" --token-file token health
expect 3 "a client certificate from another CA fails (exit 3)" \
	"$zkpctl" --connect "tcp:127.0.0.1:$port" --tls-ca "$pki/ca.pem" \
	--tls-cert "$pki/stranger.pem" --tls-key "$pki/stranger.key" --token-file token health
expect 0 "the right client certificate and token work" "${mtls[@]}" --token-file token health
expect 0 "prove with client certificate and token" "${mtls[@]}" --token-file token \
	prove c c.wtns --out p2.bin --public-json pub2.json
verify p2.bin pub2.json "that proof verifies"

denied_before=$(grep -c 'not authenticated' zkpd-auth.log || true)
expect 5 "TCP: no token is denied (exit 5)" "${mtls[@]}" health
check "with ERR_DENIED" "$(said)" has 'ERR_DENIED' err.txt
expect 5 "TCP: a wrong token is denied (exit 5)" "${mtls[@]}" --token-file wrong-token health
check "with ERR_DENIED: wrong token" "$(said)" has 'ERR_DENIED.*wrong token' err.txt
expect 5 "Unix: no token is denied (exit 5)" "$zkpctl" --connect "unix:$sock" status
check "with ERR_DENIED" "$(said)" has 'ERR_DENIED' err.txt
expect 5 "Unix: a wrong token is denied (exit 5)" \
	"$zkpctl" --connect "unix:$sock" --token-file wrong-token status
run env ZKPD_TOKEN_FILE="$work/token" "$zkpctl" --connect "unix:$sock" status
check "Unix: the right token from ZKPD_TOKEN_FILE works" "$(said)" test "$rc" -eq 0
denied_after=$(grep -c 'not authenticated' zkpd-auth.log || true)
check "the daemon closed the 4 refused connections" \
	"before $denied_before, after $denied_after" test "$((denied_after - denied_before))" -eq 4

# a raw connection: after the refusal the daemon closes it (zkpctl would
# exit anyway, so read until EOF with a plain socket client)
if command -v python3 >/dev/null; then
	run python3 - "$sock" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
# Envelope{call_id=1, request{health{}}}: fields 1 (varint) and 2 (message
# holding field 9, an empty message)
req = bytes([0x4a, 0x00])
env = bytes([0x08, 0x01, 0x12, len(req)]) + req
s.sendall(struct.pack(">I", len(env)) + env)
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
print(len(data), b"ERR_DENIED" in data)
EOF
	check "a raw unauthenticated call gets ERR_DENIED and then EOF" "$(said)" \
		grep -q ' True' out.txt
fi
expect 0 "the daemon keeps serving" "${mtls[@]}" --token-file token health

# Before Authenticate only small frames are taken: a 1 MiB frame is refused
# from its header (ERR_LIMIT naming server.preauth_max_frame_bytes), and
# unauthenticated connections together hold at most preauth_buffer_bytes
# (64K here): eight connections each holding 7,900 bytes of an unfinished
# 8,000-byte frame fit, a ninth is refused; once they are gone the bytes
# they held are free again. The prove above sent a witness frame larger
# than 8K after authenticating.
run python3 - "$sock" <<'PYEOF2'
import socket, struct, sys

def dial():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    return s

def drain(s):
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk

s = dial()
s.sendall(struct.pack(">I", 1 << 20) + b"\0" * 4096)
data = drain(s)
print("big-frame", b"ERR_LIMIT" in data and b"preauth_max_frame_bytes" in data)

held = []
for i in range(8):
    c = dial()
    c.sendall(struct.pack(">I", 8000) + b"\0" * 7900)
    held.append(c)
ninth = dial()
ninth.sendall(struct.pack(">I", 8000) + b"\0" * 7900)
data = drain(ninth)
print("ninth", b"ERR_LIMIT" in data and b"preauth_buffer_bytes" in data)
held[0].settimeout(1)
try:
    kept = held[0].recv(1) == b""
except socket.timeout:
    kept = True
print("eight-kept", kept)
for c in held:
    c.close()
import time
time.sleep(0.5)
again = dial()
again.settimeout(1)
again.sendall(struct.pack(">I", 8000) + b"\0" * 7900)
try:
    again.recv(1)
    freed = False  # an answer or EOF: it was refused
except socket.timeout:
    freed = True
print("freed-again", freed)
PYEOF2
check "before Authenticate a 1 MiB frame is refused (ERR_LIMIT, preauth_max_frame_bytes)" \
	"$(said)" grep -q 'big-frame True' out.txt
check "a ninth unauthenticated connection passing preauth_buffer_bytes is refused" \
	"$(said)" grep -q 'ninth True' out.txt
check "the eight within it stay open" "$(said)" grep -q 'eight-kept True' out.txt
check "closed connections give their bytes back" "$(said)" grep -q 'freed-again True' out.txt
expect 0 "the daemon keeps serving after them" "${mtls[@]}" --token-file token health
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
