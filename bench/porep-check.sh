#!/usr/bin/env bash
# PoRep C2 measured end to end: a development-sealed sector's C1 through a
# real zkpd, beside the same proof made offline in the same run.
#
#   bench/porep-check.sh BUILD_DIR                      2 KiB (scripts/porep-dev-key)
#   bench/porep-check.sh BUILD_DIR 8MiB PCE KEY VK      another size: its circuit and key
#
# Seals a sector with `zkp porep seal` (interactive, random data), runs
# `zkpd-bench porep --c1` on its C1 (parse time and peak-RSS growth, the
# public inputs derived and checked, partition 0's witness against the
# memset floor, the share of bit-valued variables, and the projection of
# one 32 GiB partition), starts zkpd on the circuit (one CPU pipeline),
# proves the C1 PROOFS times with `zkpctl porep` (each proof checked with
# `zkp porep verify`), then proves it once offline with `zkp porep prove`
# as the reference. Prints one JSON object: per-stage medians through zkpd,
# the daemon's RSS after loading and its peak against the circuit's memory
# model (the working set admission reserves), and the ratio of zkpd's
# median to the offline proof.
#
# A benchmark, not a test: it judges no figure. Exit 0 when every proof was
# DONE and verified; 1 otherwise; 2 usage. Environment: PROOFS (3),
# THREADS (synthesis.threads, default all CPUs), PORE_KEEP=1 keeps the work
# directory.
set -euo pipefail

if [ $# -ne 1 ] && [ $# -ne 5 ]; then
  echo "usage: $0 BUILD_DIR [SIZE PCE KEY VK]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
zkp=$build/src/tools/zkp
zkpd=$build/src/daemon/zkpd
zkpctl=$build/src/daemon/zkpctl
bench=$build/bench/zkpd-bench
proofs=${PROOFS:-3}
threads=${THREADS:-0}
if [ $# -eq 1 ]; then
  size=2KiB
  keydir=$("$src/scripts/porep-dev-key" "$build")
  pce=$keydir/porep-2k.pce
  key=$keydir/porep-2k.INSECURE-DEV.params
  vk=$keydir/porep-2k.INSECURE-DEV.vk
else
  size=$2
  pce=$(realpath "$3")
  key=$(realpath "$4")
  vk=$(realpath "$5")
fi
case $size in
  2KiB) bytes=2K ;; 8MiB) bytes=8M ;; 512MiB) bytes=512M ;; 32GiB) bytes=32G ;; 64GiB) bytes=64G ;;
  *) echo "$0: SIZE is 2KiB, 8MiB, 512MiB, 32GiB or 64GiB" >&2; exit 2 ;;
esac

work=$(mktemp -d)
sock=$work/zkpd.sock
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  if [ -n "${PORE_KEEP:-}" ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
cd "$work"

now() { date +%s.%N; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -n1 | tr -d '"'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
  else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
seed=$(printf '%02x' $(seq 101 132) | tr -d '\n')
t0=$(now)
"$zkp" porep seal --sector-size "$size" --random 1 --prover-id "$prover" --sector-id 1 \
  --ticket "$ticket" --seed "$seed" -o c1.json >/dev/null
seal_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')

bench_threads=$threads
[ "$bench_threads" -gt 0 ] || bench_threads=$(nproc)
"$bench" porep --c1 c1.json --runs 3 --threads "$bench_threads" >c1-bench.json

printf '[server]\nlisten = unix:%s\n[gpus]\ndevices = cpu\n[synthesis]\nthreads = %s\n' \
  "$sock" "$threads" >zkpd.conf
printf '[circuit.porep]\npce = %s\nkey = %s\nkey_format = bellman\nporep_sector_size = %s\npreload = true\n' \
  "$pce" "$key" "$bytes" >>zkpd.conf
"$zkpd" --config zkpd.conf 2>zkpd.log &
pid=$!
for _ in $(seq 1 3000); do
  if "$zkpctl" --connect "unix:$sock" --json status 2>/dev/null >status0.json &&
     grep -q '"loaded":true' status0.json; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "$0: zkpd exited; its log:" >&2
    cat zkpd.log >&2
    exit 1
  fi
  sleep 0.2
done
failed=0
for i in $(seq 1 "$proofs"); do
  if ! "$zkpctl" --connect "unix:$sock" --json porep porep c1.json --out "c2-$i.bin" \
       >"job$i.json" 2>"job$i.err"; then
    echo "$0: proof $i failed: $(cat "job$i.err")" >&2
    failed=$((failed + 1))
    continue
  fi
  if ! "$zkp" porep verify --vk "$vk" --c1 c1.json --proof "c2-$i.bin" --prover-id "$prover" \
       --sector-id 1 >/dev/null 2>&1; then
    echo "$0: proof $i does not verify" >&2
    failed=$((failed + 1))
  fi
done
"$zkpctl" --connect "unix:$sock" --json status >status1.json
kill -TERM "$pid"
wait "$pid" || failed=$((failed + 1))
pid=

stage_median() { # STAGE
  for i in $(seq 1 "$proofs"); do
    sed -n "s/.*{\"stage\":\"$1\",\"seconds\":\([^,}]*\).*/\1/p" "job$i.json"
  done | median
}
total=$(for i in $(seq 1 "$proofs"); do field total_seconds "job$i.json"; done | median)

t0=$(now)
"$zkp" porep prove --c1 c1.json --key "$key" --pce "$pce" -o offline.bin >/dev/null 2>offline.err
offline_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
"$zkp" porep verify --vk "$vk" --c1 c1.json --proof offline.bin >/dev/null 2>&1 ||
  failed=$((failed + 1))

# The daemon's own figures: "memory":{"rss_bytes":N,"peak_rss_bytes":N,...
mem() { tr -d '\n ' <"$2" | sed -n "s/.*\"memory\":{[^}]*\"$1\":\([0-9]*\).*/\1/p"; }
rss0=$(mem rss_bytes status0.json)
peak=$(mem peak_rss_bytes status1.json)
ws=$(field working_set_bytes status0.json)
key_bytes=$(field key_bytes status0.json)
pce_bytes=$(field pce_bytes status0.json)
cat <<EOF
{"bench":"porep-check","size":"$size","proofs":$proofs,"seal_s":$seal_s,
 "c1":$(cat c1-bench.json),
 "zkpd":{"total_s":$total,"witness_s":$(stage_median witness),"eval_s":$(stage_median eval),
  "ntt_s":$(stage_median ntt),"msm_s":$(stage_median msm),"assemble_s":$(stage_median assemble),
  "verify_s":$(stage_median verify),
  "rss_after_load_mib":$(awk -v v="$rss0" 'BEGIN { printf "%.1f", v / 1048576 }'),
  "peak_rss_mib":$(awk -v v="$peak" 'BEGIN { printf "%.1f", v / 1048576 }'),
  "key_mib":$(awk -v v="$key_bytes" 'BEGIN { printf "%.1f", v / 1048576 }'),
  "pce_mib":$(awk -v v="$pce_bytes" 'BEGIN { printf "%.1f", v / 1048576 }'),
  "model_working_set_mib":$(awk -v v="$ws" 'BEGIN { printf "%.1f", v / 1048576 }'),
  "job_peak_over_model":$(awk -v p="$peak" -v r="$rss0" -v w="$ws" 'BEGIN { printf "%.3f", (p - r) / w }')},
 "offline_prove_s":$offline_s,
 "zkpd_over_offline":$(awk -v a="$total" -v b="$offline_s" 'BEGIN { printf "%.3f", a / b }'),
 "failed":$failed}
EOF
[ "$failed" -eq 0 ]
