#!/usr/bin/env bash
# Scale-out behind a TCP load balancer: two zkpd daemons (plaintext TCP on
# loopback) behind Debian's HAProxy in TCP mode, round robin with health
# checks. Jobs sent to the balancer are spread over both daemons; when one
# daemon is killed, clients retrying with the same request_id complete on
# the other; and zkpctl given several addresses fails over by itself. A
# small synthetic circuit with an INSECURE development key.
# Skipped (77) when haproxy is not installed.
# Usage: scaleout.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
haproxy=$(command -v haproxy || true)
if [ -z "$haproxy" ] && [ -x /usr/sbin/haproxy ]; then
	haproxy=/usr/sbin/haproxy
fi
if [ -z "$haproxy" ]; then
	echo "haproxy not installed (scripts/setup installs it): skipped"
	exit 77
fi

make_work_dir
trap cleanup EXIT

"$zkp" synth --shape porep --constraints 4000 -o small.pce --witness small.wtns >/dev/null
"$zkp" setup small.pce -o small >/dev/null 2>&1
vk=small.INSECURE-DEV.vk

ports=()
for n in 1 2; do
	port=$(free_port)
	ports+=("$port")
	cat >"zkpd$n.conf" <<EOF
# INSECURE development key: scale-out test only
[server]
listen = tcp:127.0.0.1:$port
tcp_plaintext = true
[circuit.small]
pce = $work/small.pce
key = $work/small.INSECURE-DEV.params
key_format = bellman
preload = true
EOF
	"$zkpd" --config "zkpd$n.conf" 2>"zkpd$n.log" &
	pids+=($!)
done
for n in 1 2; do
	wait_healthy "${pids[$((n - 1))]}" 300 "$zkpctl" --connect "tcp:127.0.0.1:${ports[$((n - 1))]}" ||
		{ echo "zkpd $n did not start:"; cat "zkpd$n.log"; exit 1; }
done

lb=$(free_port)
cat >haproxy.cfg <<EOF
global
    maxconn 2000
defaults
    mode tcp
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    retries 2
    option redispatch
frontend zkpd
    bind 127.0.0.1:$lb
    default_backend provers
backend provers
    balance roundrobin
    server zkpd1 127.0.0.1:${ports[0]} check inter 200ms fall 1 rise 2
    server zkpd2 127.0.0.1:${ports[1]} check inter 200ms fall 1 rise 2
EOF
"$haproxy" -f haproxy.cfg -db >haproxy.log 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	"$zkpctl" --connect "tcp:127.0.0.1:$lb" health >/dev/null 2>&1 && break
	sleep 0.1
done

# prove N REQUEST_ID: through the balancer, retrying on a lost connection
# (exit 3) with the same request_id, as a client of a fleet would. Each
# retry appends a line to retries.log.
prove() {
	local i=$1 rid=$2 rc
	for _ in $(seq 20); do
		rc=0
		"$zkpctl" --connect "tcp:127.0.0.1:$lb" prove small small.wtns --request-id "$rid" \
			--out "proof$i.bin" --public-json "public$i.json" >/dev/null 2>"prove$i.err" || rc=$?
		[ "$rc" -ne 3 ] && return "$rc"
		echo "$rid" >>retries.log
		sleep 0.3
	done
	return "$rc"
}
done_on() {
	"$zkpctl" --connect "tcp:127.0.0.1:$1" metrics 2>/dev/null |
		sed -n 's/^zkpd_jobs_total{state="done"} \([0-9]*\)$/\1/p'
}

# Jobs are spread.
all=1
for i in $(seq 1 8); do
	if ! prove "$i" "spread-$i" || ! valid_proof "$vk" "proof$i.bin" "public$i.json"; then
		all=0
		bad "proof $i through the balancer" "$(tail -n2 "prove$i.err" | tr '\n' ' ')"
	fi
done
[ "$all" -eq 0 ] || ok "8 proofs through the balancer, all verify"
d1=$(done_on "${ports[0]}")
d2=$(done_on "${ports[1]}")
if [ "${d1:-0}" -ge 1 ] && [ "${d2:-0}" -ge 1 ]; then
	ok "jobs are spread over both daemons ($d1 and $d2)"
else
	bad "jobs are spread over both daemons" "done: ${d1:-?} and ${d2:-?}"
fi

# One daemon dies while clients keep proving: retries complete on the other.
# Eight clients prove four times each; the kill lands while some of their
# calls are open on the daemon that dies.
: >retries.log
client() {
	local c=$1 k
	for k in 1 2 3 4; do
		prove "$c$k" "failover-$c-$k" || return 1
		valid_proof "$vk" "proof$c$k.bin" "public$c$k.json" || return 1
	done
}
clients=()
for c in $(seq 1 8); do
	client "$c" &
	clients+=($!)
done
sleep 0.3
kill -KILL "${pids[0]}"
all=1
for c in $(seq 1 8); do
	rc=0
	wait "${clients[$((c - 1))]}" || rc=$?
	if [ "$rc" -ne 0 ]; then
		all=0
		bad "client $c completes after a daemon died" "exit $rc"
	fi
done
retries=$(wc -l <retries.log)
[ "$all" -eq 0 ] || ok "with one daemon killed, 8 clients x 4 proofs complete and verify ($retries retried)"
if [ "$retries" -ge 1 ]; then
	ok "the kill interrupted open calls, which were retried on the other daemon"
else
	bad "the kill interrupted open calls" "no call needed a retry"
fi
if "$zkpctl" --connect "tcp:127.0.0.1:${ports[1]}" health >/dev/null 2>&1; then
	ok "the surviving daemon serves"
else
	bad "the surviving daemon serves" "no health answer"
fi

# A fleet without a balancer: zkpctl itself moves on from the dead daemon.
fleet="tcp:127.0.0.1:${ports[0]},tcp:127.0.0.1:${ports[1]}"
all=1
for i in $(seq 21 24); do
	rc=0
	"$zkpctl" --connect "$fleet" prove small small.wtns --out "proof$i.bin" \
		--public-json "public$i.json" >/dev/null 2>"prove$i.err" || rc=$?
	if [ "$rc" -ne 0 ] || ! valid_proof "$vk" "proof$i.bin" "public$i.json" ||
		! grep -q "trying tcp:127.0.0.1:${ports[1]}" "prove$i.err"; then
		all=0
		bad "zkpctl --connect with a dead first daemon" "exit $rc; $(tr '\n' ' ' <"prove$i.err")"
	fi
done
[ "$all" -eq 0 ] || ok "zkpctl --connect DEAD,ALIVE fails over and proves (4 of 4)"
rc=0
"$zkpctl" --connect "$fleet" await 1 >/dev/null 2>await.err || rc=$?
if [ "$rc" -eq 2 ] && grep -q "one --connect address" await.err; then
	ok "await refuses a list of daemons (job ids belong to one)"
else
	bad "await does not fail over" "exit $rc; $(tr '\n' ' ' <await.err)"
fi

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
