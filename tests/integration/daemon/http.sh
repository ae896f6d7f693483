#!/usr/bin/env bash
# zkpd's HTTP endpoint and JSON logs end to end: a zkpd configured with
# [http] listen on a free loopback port and [log] format = json proves one
# job of the demo circuit, then curl checks /metrics (# TYPE lines, the job
# counter, the stage histogram), /status (JSON naming the circuit), /healthz
# (200, then 503 while draining), 404 and 405; every log line is one JSON
# object and each job's summary line is there (done, failed); a second zkpd
# on the same HTTP port does not start (exit 1, naming the address); with
# http.require_token, /metrics and /status need the bearer token and
# /healthz does not.
# Usage: http.sh BUILD_DIR WORK_DIR. Exit 77 (skipped) without curl.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v curl >/dev/null 2>&1; then
	echo "skip: curl not installed"
	exit 77
fi

set_paths "$1" "$2"
make_work_dir
demo=$work/demo
pick_sock http
trap cleanup EXIT

# start LOG ARGS...: starts zkpd in the background ($pid) and waits until it
# answers Health on $sock or exits; $up says which
up=no
start() {
	launch_zkpd "$@"
	pids+=("$pid")
	up=no
	if wait_healthy "$pid" 600 "$zkpctl" --connect "unix:$sock"; then up=yes; fi
}

# --- the demo circuit's files, made by a demo-mode zkpd --------------------

start demo.log --listen "unix:$sock" --demo-dir "$demo"
if [ "$up" != yes ]; then
	bad "demo-mode zkpd makes the demo circuit" "log: $(tail -5 demo.log | tr '\n' ' ')"
	exit 1
fi
stop_zkpd
ok "demo-mode zkpd makes the demo circuit"

# --- zkpd with [http] and [log] format = json --------------------------------

# config PORT: the configuration, HTTP on 127.0.0.1:PORT
config() {
	cat >zkpd.conf <<EOF
[server]
listen = unix:$sock
witness_dir = $demo
shutdown_grace = 30s

[log]
format = json

[http]
listen = 127.0.0.1:$1

$(demo_circuit_ini "$demo")
EOF
}

# A free port: try random ones until zkpd binds one (a taken port makes it
# exit 1 at once, before it listens on its socket).
port=
for _ in $(seq 20); do
	p=$((20000 + RANDOM % 40000))
	config "$p"
	start zkpd.log --config zkpd.conf
	if [ "$up" = yes ]; then
		port=$p
		break
	fi
	wait "$pid" 2>/dev/null || true
	if ! has 'cannot listen' zkpd.log; then
		break
	fi
done
if [ -z "$port" ]; then
	bad "zkpd starts with http.listen" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
ok "zkpd starts with http.listen = 127.0.0.1:$port"
zpid=$pid
url=http://127.0.0.1:$port

rc=0
timeout 120 "$zkpctl" --connect "unix:$sock" prove demo "$demo/demo.wtns" --out p.bin \
	>prove.out 2>&1 || rc=$?
check "zkpctl proves a job" "exit $rc: $(tail -3 prove.out | tr '\n' ' ')" test "$rc" -eq 0

# get PATH [CURL ARGS...]: body in body.txt, status in $code, type in $ctype
code=
ctype=
get() {
	local path=$1
	shift
	local out
	out=$(curl -sS -o body.txt -w '%{http_code} %{content_type}' --max-time 10 "$@" \
		"$url$path" 2>curl.err) || out="000 none"
	code=${out%% *}
	ctype=${out#* }
}

get /metrics
check "/metrics answers 200" "code $code" test "$code" = 200
check "/metrics is Prometheus text 0.0.4" "type $ctype" grep -q 'text/plain; version=0.0.4' <<<"$ctype"
check "/metrics has # TYPE lines" "$(head -c 300 body.txt)" has '^# TYPE zkpd_jobs_total counter$' body.txt
check "/metrics counts the done job" "$(grep jobs_total body.txt | tr '\n' ' ')" \
	has '^zkpd_jobs_total{state="done"} 1$' body.txt
check "/metrics has the stage histogram type" "$(grep -c duration body.txt)" \
	has '^# TYPE zkpd_stage_duration_seconds histogram$' body.txt
check "/metrics has stage buckets" "$(grep duration_seconds_bucket body.txt | head -3 | tr '\n' ' ')" \
	grep -Eq '^zkpd_stage_duration_seconds_bucket\{stage="msm",le="0\.001"\} [01]$' body.txt
check "/metrics has the +Inf bucket" "$(grep 'le="+Inf"' body.txt | tr '\n' ' ')" \
	has '^zkpd_stage_duration_seconds_bucket{stage="msm",le="+Inf"} 1$' body.txt
check "/metrics has _sum and _count" "$(grep -E '_(sum|count)' body.txt | head -4 | tr '\n' ' ')" \
	grep -Eq '^zkpd_stage_duration_seconds_count\{stage="witness"\} 1$' body.txt
check "/metrics has the histogram _sum" "" grep -Eq '^zkpd_stage_duration_seconds_sum\{stage="verify"\} [0-9.e-]+$' body.txt

get /status
check "/status answers 200" "code $code" test "$code" = 200
check "/status is JSON" "type $ctype" grep -q 'application/json' <<<"$ctype"
check "/status is one object" "$(head -c 200 body.txt)" grep -Eq '^\{".*\}$' body.txt
check "/status names the demo circuit, loaded" "$(head -c 400 body.txt)" \
	has '"name":"demo","loaded":true' body.txt
check "/status counts the done job" "$(head -c 400 body.txt)" has '"jobs_done":1' body.txt

get /healthz
check "/healthz answers 200 ok" "code $code, body $(cat body.txt)" test "$code" = 200 -a "$(cat body.txt)" = ok
get /nope
check "/nope answers 404" "code $code" test "$code" = 404
get /metrics -X POST -d x=1
check "POST answers 405" "code $code" test "$code" = 405
get /metrics -I
check "HEAD /metrics answers 200" "code $code" test "$code" = 200

# A job that fails logs its summary with the error code.
head -c 1000 "$demo/demo.wtns" >trunc.wtns
rc=0
timeout 60 "$zkpctl" --connect "unix:$sock" prove demo trunc.wtns --out x.bin >fail.out 2>&1 || rc=$?
check "a truncated witness fails the job" "exit $rc" test "$rc" -eq 1

# --- a second zkpd on the same HTTP port -------------------------------------

sed "s|unix:$sock|unix:${sock%/*}/second.sock|" zkpd.conf >second.conf
rc=0
timeout 60 "$zkpd" --config second.conf >second.log 2>&1 || rc=$?
check "a second zkpd on the same http port exits 1" "exit $rc" test "$rc" -eq 1
check "its message names the address" "$(tail -2 second.log | tr '\n' ' ')" \
	grep -q "http.listen 127.0.0.1:$port: cannot listen: Address already in use" second.log

# --- draining ------------------------------------------------------------------

# Three jobs keep the drain going for a few hundred milliseconds (the
# queued ones are cancelled, the admitted ones finish); a poller samples
# /healthz all along, so the 503 is seen however the timing falls.
rc=0
for k in 1 2 3; do
	"$zkpctl" --connect "unix:$sock" submit demo "$demo/demo.wtns" >>submit.out 2>&1 || rc=$?
done
check "submit three jobs before SIGTERM" "exit $rc" test "$rc" -eq 0
for _ in $(seq 50); do
	curl -s "$url/metrics" | grep -q '^zkpd_jobs_running [1-9]' && break
	sleep 0.01
done
(while kill -0 "$zpid" 2>/dev/null; do
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 2 "$url/healthz" || true
done >healthz.codes 2>/dev/null) &
poller=$!
for _ in $(seq 200); do [ -s healthz.codes ] && break; sleep 0.005; done
kill -TERM "$zpid"
rc=0
for _ in $(seq 300); do kill -0 "$zpid" 2>/dev/null || break; sleep 0.1; done
wait "$zpid" || rc=$?
check "zkpd exits 0 on SIGTERM" "exit $rc" test "$rc" -eq 0
wait "$poller" || true
check "/healthz answers 503 while draining" "codes $(sort healthz.codes | uniq -c | tr '\n' ' ')" \
	grep -qx 503 healthz.codes
check "/healthz answered 200 before the drain" "codes $(sort healthz.codes | uniq -c | tr '\n' ' ')" \
	grep -qx 200 healthz.codes

# --- JSON log lines -----------------------------------------------------------

line='^\{"ts":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z","level":"(error|warn|info|debug)","prog":"zkpd","pid":[0-9]+,"msg":"([^"\\]|\\.)*"(,"[a-z_]+":.*)?\}$'
n=$(wc -l <zkpd.log)
nbad=$(grep -Evc "$line" zkpd.log || true)
check "every log line is one JSON object ($n lines)" "$(grep -Ev "$line" zkpd.log | head -2)" \
	test "$n" -gt 0 -a "$nbad" -eq 0
summary='"msg":"job 1 done: circuit demo priority normal device cpu queue [0-9.]+ s total [0-9.]+ s (\| load [0-9.]+ )?\| queued [0-9.]+ \| witness [0-9.]+ \| eval [^"]* \| verify [0-9.]+ \| result [0-9.]+ \| spans [0-9.]+ s = [0-9.]+ % of total \| rss witness [0-9.]+ MiB, [^"]*verify [0-9.]+ MiB"'
check "the job's summary line" "$(grep '"job":1' zkpd.log | head -1)" grep -Eq "$summary" zkpd.log
check "the summary's JSON members" "$(grep '"job":1' zkpd.log | head -1)" \
	grep -Eq '"job":1,"circuit":"demo","priority":"normal","state":"done","device":"cpu","cpu_fallback":false,"device_eval":false,"queue_seconds":[0-9.]+,"total_seconds":[0-9.]+,"stages":\{.*"msm":\{"seconds":[0-9.]+,"rss_mib":[0-9.]+\}.*\},"spans":\{("load":[0-9.]+,)?"queued":[0-9.]+,"witness":[0-9.]+,.*"verify":[0-9.]+,"result":[0-9.]+\},"spans_seconds":[0-9.]+\}$' zkpd.log
# The spans' sum against the total, from the JSON members.
sums=$(grep '"job":1,' zkpd.log | head -1 | sed -n 's/.*"total_seconds":\([0-9.]*\),.*"spans_seconds":\([0-9.]*\)}$/\1 \2/p')
check "job 1's spans add up to its total within 5 % ($sums)" "$sums" \
	awk -v s="$sums" 'BEGIN { split(s, v, " "); exit !(v[1] > 0 && v[2] >= 0.95 * v[1] && v[2] <= 1.05 * v[1]) }'
check "the failed job's summary line" "$(grep '"job":2' zkpd.log | head -1)" \
	grep -Eq '"msg":"job 2 failed: circuit demo priority normal error ERR_[A-Z_]+ queue [0-9.]+ s total [0-9.]+ s.*","job":2,"circuit":"demo","priority":"normal","state":"failed","error":"ERR_[A-Z_]+",' zkpd.log
check "the drained job's summary line" "$(grep '"job":3' zkpd.log | head -1)" \
	grep -Eq '"msg":"job 3 (done|cancelled): circuit demo' zkpd.log

# --- http.require_token -------------------------------------------------------

# With a token required, /metrics and /status answer 401 (with a Bearer
# challenge) without it or with a wrong one, 200 with it; /healthz stays
# open for load balancers. It needs server.token_file (--check-config).
printf 'test-only-http-token-%s\n' "$RANDOM$RANDOM" >token
chmod 600 token
printf '[http]\nlisten = 127.0.0.1:9\nrequire_token = true\n' >no-token.conf
expect 2 "http.require_token without server.token_file fails --check-config" \
	"$zkpd" --check-config no-token.conf
check "it says what is missing" "$(said)" has 'require_token: set without server.token_file' err.txt
tport=
for _ in $(seq 20); do
	p=$((20000 + RANDOM % 40000))
	cat >token.conf <<EOF
[server]
listen = unix:$sock
token_file = $work/token
[http]
listen = 127.0.0.1:$p
require_token = true
$(demo_circuit_ini "$demo")
EOF
	launch_zkpd token.log --config token.conf
	pids+=("$pid")
	if wait_healthy "$pid" 600 "$zkpctl" --connect "unix:$sock" --token-file token; then
		tport=$p
		break
	fi
	wait "$pid" 2>/dev/null || true
	has 'cannot listen' token.log || break
done
if [ -z "$tport" ]; then
	bad "zkpd starts with http.require_token" "log: $(tail -3 token.log | tr '\n' ' ')"
else
	base=http://127.0.0.1:$tport
	tok=$(tr -d '\n' <token)
	for u in metrics status; do
		code=$(curl -s -o /dev/null -w '%{http_code}' "$base/$u")
		check "/$u without the token: 401" "got $code" test "$code" = 401
		code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer wrong-$tok" "$base/$u")
		check "/$u with a wrong token: 401" "got $code" test "$code" = 401
		code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" "$base/$u")
		check "/$u with the token: 200" "got $code" test "$code" = 200
	done
	curl -s -D headers.txt -o /dev/null "$base/metrics" || true
	check "the 401 carries a Bearer challenge" "$(tr '\r\n' '  ' <headers.txt)" \
		grep -qi '^WWW-Authenticate: Bearer' headers.txt
	code=$(curl -s -o /dev/null -w '%{http_code}' "$base/healthz")
	check "/healthz needs no token: 200" "got $code" test "$code" = 200
	stop_zkpd
fi

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
