#!/usr/bin/env bash
# bench/gpu-porep.sh's flow with stand-in programs: a kit whose zkp, zkpd
# and zkpctl are small scripts that answer as the real ones do (the files
# they write, the lines and JSON the script reads) in a fraction of a
# second, so the flow runs here in seconds. Checks, for a run with room
# for everything: exit 0, a row for every step, four proofs verified (one
# alone, three back to back), the figures (stages, sectors per hour, peak
# RSS, busy fraction, the device memory plan) in the summary and in gpu-porep.json, the sealing
# running beside the circuit, at most 7 files back, WORK removed; and for
# a run whose budget is too short: the steps that do not fit skipped with
# a row, the script inside its budget, exit 0.
# Usage: gpu-porep-flow.sh REPO_ROOT
set -u
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/kit/bin" "$tmp/kit/lib"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# zkp: porep seal | porep circuit | setup | porep verify.
cat >"$tmp/kit/bin/zkp" <<'EOF'
#!/usr/bin/env bash
out=
args=("$@")
for ((i = 0; i < $#; i++)); do
	[ "${args[$i]}" = -o ] && out=${args[$((i + 1))]}
done
case "$1 $2" in
"porep seal")
	case " $* " in *" --sparse "*) ;; *) echo "stand-in zkp: want --sparse" >&2; exit 2 ;; esac
	sleep 0.5
	date +%s.%N >"$out.started"
	echo '{"stand-in":"c1"}' >"$out"
	;;
"porep circuit")
	case " $* " in *" --in-memory "*) ;; *) echo "stand-in zkp: want --in-memory" >&2; exit 2 ;; esac
	date +%s.%N >"$out.started"
	sleep 1
	echo pce >"$out"
	;;
"porep verify")
	echo valid
	;;
setup*)
	case " $* " in *" --cache-only "*) ;; *) echo "stand-in zkp: want --cache-only" >&2; exit 2 ;; esac
	echo "zkp setup: points on the CPU" >&2
	echo "zkp setup: wrote INSECURE development keys $out.INSECURE-DEV.zkpc and $out.INSECURE-DEV.vk (domain 2^22); setup 1.50 s, write 0.20 s" >&2
	echo key >"$out.INSECURE-DEV.zkpc"
	echo vk >"$out.INSECURE-DEV.vk"
	;;
*)
	echo "stand-in zkp: unexpected $*" >&2
	exit 2
	;;
esac
EOF
# zkpd: marks its socket path as up until SIGTERM.
cat >"$tmp/kit/bin/zkpd" <<'EOF'
#!/usr/bin/env bash
sock=$(sed -n 's/^listen = unix://p' "$2")
grep -q '^devices = auto' "$2" || { echo "stand-in zkpd: want devices = auto" >&2; exit 2; }
trap 'rm -f "$sock.up"; exit 0' TERM
echo "2026-12-05T00:00:00Z INFO circuit porep on cuda:0: 50.1 GiB resident (G1 queries, B_G2, matrices, NTT tables), 15.9 GiB a job; 73.7 GiB of 76.0 GiB planned" >&2
for mib in 2.50 2.40 2.60; do
	echo "2026-12-05T00:00:01Z INFO job 9 done: circuit porep priority normal device cuda:0 (eval on the device) witness up $mib MiB packed queue 0.000 s total 0.300 s" >&2
done
echo "2026-12-05T00:00:02Z INFO job 12 done: circuit porep priority normal device cuda:0 witness up 96.00 MiB whole queue 0.000 s total 0.300 s" >&2
sleep 0.3
touch "$sock.up"
while :; do sleep 0.1; done
EOF
# zkpctl: status and porep, as JSON.
cat >"$tmp/kit/bin/zkpctl" <<'EOF'
#!/usr/bin/env bash
sock=${2#unix:}
[ -e "$sock.up" ] || { echo "zkpctl: cannot connect" >&2; exit 3; }
shift 2
out=
while [ $# -gt 0 ]; do
	case $1 in
	--json) shift ;;
	--timeout) shift 2 ;;
	status)
		echo '{"devices":[{"name":"cuda:0","kind":"cuda","busy_seconds":2.5}],"circuits":[{"name":"porep","loaded":true}],"memory":{"rss_bytes":1000,"peak_rss_bytes":3221225472}}'
		exit 0
		;;
	porep)
		# porep CIRCUIT C1 --out PROOF
		[ -s "$3" ] || { echo "zkpctl: no C1 $3" >&2; exit 4; }
		[ "$4" = --out ] && out=$5
		sleep 0.6
		echo proof >"$out"
		echo '{"job_id":1,"state":"done","circuit":"porep","total_seconds":0.6,"partitions":2,"stages":[{"stage":"witness","seconds":0.1},{"stage":"msm","seconds":0.4}],"partition_times":[{"partition":0,"job_id":2,"total_seconds":0.3,"spans":{"eval":0.05,"msm_h":0.2}},{"partition":1,"job_id":3,"total_seconds":0.3,"spans":{"eval":0.04,"msm_h":0.21}}]}'
		exit 0
		;;
	*) echo "stand-in zkpctl: unexpected $1" >&2; exit 2 ;;
	esac
done
EOF
chmod +x "$tmp/kit/bin/"*

# A run with room for everything.
mkdir -p "$tmp/out1"
t0=$SECONDS
GPU_POREP_OUT=$tmp/out1 WORK=$tmp/work1 TOTAL_S=200 SECTORS=3 OUT='' \
	"$root/bench/gpu-porep.sh" --kit "$tmp/kit" --sector-size 2KiB >"$tmp/stdout1" 2>&1
rc=$?
took=$((SECONDS - t0))
sum=$tmp/out1/summary.txt
[ "$rc" -eq 0 ] || fail "exit $rc (want 0)"
[ "$took" -le 60 ] || fail "took $took s with stand-ins"
[ -s "$sum" ] || fail "no summary.txt"
for r in "seal 3 sectors (sparse)  *ok" "circuit (2KiB partition)  *ok" \
	"key (INSECURE, standalone .zkpc)  *ok .*points on the CPU" "zkpd start and load  *ok .*device cuda:0" \
	"one sector alone  *ok" "3 sectors back to back  *ok" "verify (zkp porep verify)  *ok  *4 of 4 valid" \
	"stages: witness 0.100 msm 0.400" "partition 1: 0.30 s: eval 0.040 msm_h 0.210" "sectors/hour" "zkpd peak RSS 3.0 GiB" \
	"device cuda:0 busy 2.5 s" "witness up packed in 3 jobs, median 2.5 MiB" \
	"witness up whole in 1 jobs, median 96.0 MiB" \
	"device plan: circuit porep on cuda:0: 50.1 GiB resident (G1 queries, B_G2, matrices, NTT tables)"; do
	grep -q "$r" "$sum" || fail "summary lacks '$r'"
done
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['proofs_verified']==4 and len(d['jobs'])==4 and d['sectors_per_hour']>0" \
	"$tmp/out1/gpu-porep.json" 2>/dev/null || fail "gpu-porep.json lacks the figures"
# The sealing starts before the circuit is done (beside it, not after).
n=$(find "$tmp/out1" -type f | wc -l)
[ "$n" -le 7 ] || fail "$n files in the output directory (at most 7)"
[ ! -e "$tmp/work1" ] || fail "WORK left behind"

# The same with KEEP, to look at when the seals started.
mkdir -p "$tmp/out3"
GPU_POREP_OUT=$tmp/out3 WORK=$tmp/work3 TOTAL_S=200 SECTORS=2 KEEP=1 OUT='' \
	"$root/bench/gpu-porep.sh" --kit "$tmp/kit" --sector-size 2KiB >"$tmp/stdout3" 2>&1 ||
	fail "exit $? with KEEP"
if [ -f "$tmp/work3/c1-1.json.started" ] && [ -f "$tmp/work3/porep.pce.started" ]; then
	awk -v s="$(cat "$tmp/work3/c1-1.json.started")" -v c="$(cat "$tmp/work3/porep.pce.started")" \
		'BEGIN { exit !(s < c + 1.0) }' || fail "the seals waited for the circuit"
else
	fail "KEEP did not keep WORK"
fi

# A budget too short for the key: skipped with a row, the rest not run.
mkdir -p "$tmp/out2"
t0=$SECONDS
GPU_POREP_OUT=$tmp/out2 WORK=$tmp/work2 TOTAL_S=55 SECTORS=3 OUT='' \
	"$root/bench/gpu-porep.sh" --kit "$tmp/kit" --sector-size 2KiB >"$tmp/stdout2" 2>&1
rc=$?
took=$((SECONDS - t0))
[ "$rc" -eq 0 ] || fail "short budget: exit $rc (want 0)"
[ "$took" -le 55 ] || fail "short budget: took $took s of 55"
grep -q "key (INSECURE, standalone .zkpc)  *skipped  *estimated 40 s" "$tmp/out2/summary.txt" ||
	fail "short budget: the key was not skipped with a row"
grep -q "one sector alone" "$tmp/out2/summary.txt" && fail "short budget: proved without a key"

# Usage errors.
"$root/bench/gpu-porep.sh" --kit "$tmp/kit" --sector-size 1TiB >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown size is not a usage error"
"$root/bench/gpu-porep.sh" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no --kit is not a usage error"

if [ "$fails" -gt 0 ]; then
	for f in "$tmp"/stdout*; do
		echo "---- $f"
		cat "$f"
	done
	exit 1
fi
echo "gpu-porep flow: ok (stand-in programs; 3 runs)"
