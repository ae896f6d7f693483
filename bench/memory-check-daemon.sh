#!/usr/bin/env bash
# The daemon-level memory check (docs/memory.md, "The daemon check").
#
#   bench/memory-check-daemon.sh BUILD_DIR [--update | --summary FILE]
#
# Builds nothing: uses BUILD_DIR's zkp, zkpd, zkpctl and zkpd-bench. Starts a
# real zkpd on a Unix socket, as bench/soak.sh does (bench/lib-daemon.sh: a
# 2^16-domain synthetic PoRep-shaped circuit, INSECURE dev keys, a job
# journal), and drives it with `zkpd-bench load --mixed`: 32 connections
# opened and closed, 200 Status calls, then 40 proofs from 2 clients with
# request_ids, priorities cycling, every tenth submitted and cancelled, each
# result journaled and verified. The daemon's RSS (Status) is read after it
# loaded the circuit and at the quiet point after each tenth of the proofs
# (no job queued or running); its peak RSS (VmHWM) at the end. This covers
# what bench/memory-check.sh, which measures `zkpd-bench pipeline` alone,
# cannot see: the engine, sessions, the journal and the socket server.
#
# Fails when
#   1. a figure is missing from the run (never read as 0);
#   2. quiet RSS grows: the median of readings 6-10 exceeds that of readings
#      2-5 by more than max(2%, 6 MiB) (a leak of one 2 MiB witness per
#      proof grows it by about 40 MiB);
#   3. any quiet reading after the first exceeds the first by more than
#      max(5%, 16 MiB);
#   4. the last quiet reading exceeds the post-load reading by more than
#      max(10%, 16 MiB): what proving leaves resident for good;
#   5. steady (median of readings 6-10) or peak RSS exceed
#      bench/memory-baseline-daemon.json's by more than max(10%, 16 MiB).
# --update rewrites the baseline from this run (review the diff before
# committing it); ZKPD_MEMORY_BASELINE=FILE names another baseline file.
# ZKPD_MEMCHECK_DAEMON=PROGRAM runs PROGRAM in place of BUILD_DIR's zkpd
# (the memory_check_daemon_catches_leak test runs zkpd-test-hooks with
# ZKPD_TEST_LEAK_BYTES_PER_JOB set, and expects this check to fail).
# --summary FILE judges a saved summary (the JSON this script writes to
# BUILD_DIR/memory-check-daemon/summary.json) instead of running zkpd.
# Exit 0 pass, 1 fail, 2 usage, 77 skipped (zkpd not on jemalloc: the
# baseline holds jemalloc figures).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
baseline_file="${ZKPD_MEMORY_BASELINE:-$here/memory-baseline-daemon.json}"
summary=
update=
if [ $# -eq 3 ] && [ "$2" = "--summary" ]; then
  summary=$3
elif [ $# -eq 2 ] && [ "$2" = "--update" ]; then
  update=1
elif [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR [--update | --summary FILE]" >&2
  exit 2
fi
proofs=40
out_dir=

if [ -z "$summary" ]; then
  # shellcheck source=bench/lib-daemon.sh
  . "$here/lib-daemon.sh"
  daemon_init memory-check-daemon "$1" ""
  zkpctl="$build/src/daemon/zkpctl"
  out_dir="$build/memory-check-daemon"
  if [ -n "${ZKPD_MEMCHECK_DAEMON:-}" ]; then
    zkpd=$ZKPD_MEMCHECK_DAEMON
    out_dir="$out_dir-$(basename "$zkpd")"
  fi
  for p in "$zkpctl" "$zkpd"; do
    if [ ! -x "$p" ]; then
      echo "memory-check-daemon: $p not built" >&2
      exit 2
    fi
  done
  rm -rf "$out_dir"
  mkdir -p "$out_dir"
  start=$(date +%s)
  daemon_circuit
  DAEMON_JOURNAL=1 daemon_start 64
  status=0
  "$bench" load --connect "$addr" --connections 32 --status-calls 200 \
    --circuit porep16 --witness "$work/porep16.wtns" --proofs "$proofs" --proof-clients 2 \
    --runs 1 --mixed --vk "$work/porep16.INSECURE-DEV.vk" --seed 1 \
    >"$out_dir/load.json" 2>"$out_dir/load.log" || status=$?
  "$zkpctl" --connect "$addr" status --json >"$out_dir/status.json" || status=$?
  daemon_stop || status=1
  cp "$work/zkpd.log" "$out_dir/zkpd.log"
  if [ "$status" -ne 0 ]; then
    tail -n 20 "$out_dir/load.log" >&2
    echo "memory-check-daemon: the load run or zkpd failed (logs in $out_dir)" >&2
    exit 1
  fi
  summary="$out_dir/summary.json"
  python3 - "$out_dir/load.json" "$out_dir/status.json" "$summary" \
    "$(( $(date +%s) - start ))" <<'PY'
import json, sys
load = json.load(open(sys.argv[1]))
st = json.load(open(sys.argv[2]))
mem = st.get("memory", {})
out = {
    "jemalloc": mem.get("allocated_bytes", 0) > 0,
    "rss_mib": load.get("rss_mib", {}),
    "peak_rss_mib": mem["peak_rss_bytes"] / 1048576 if "peak_rss_bytes" in mem else None,
    "final_rss_mib": mem["rss_bytes"] / 1048576 if "rss_bytes" in mem else None,
    "jobs_lost": load.get("mixed", {}).get("lost"),
    "jobs_duplicated": load.get("mixed", {}).get("duplicated"),
    "elapsed_s": int(sys.argv[4]),
}
json.dump(out, open(sys.argv[3], "w"), indent=2)
PY
fi

python3 - "$summary" "$baseline_file" "$proofs" "${update:-}" "${out_dir:-}" <<'PY'
import json, statistics, sys
summary_path, baseline_path, proofs, update, out_dir = sys.argv[1:6]
proofs = int(proofs)
s = json.load(open(summary_path))

def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

if not s.get("jemalloc"):
    print("memory-check-daemon: skipped: zkpd does not run on jemalloc in this build")
    sys.exit(77)
rss = s.get("rss_mib", {})
names = ["before"] + ["after_%d_proofs" % (proofs * d // 10) for d in range(1, 11)]
missing = [n for n in names if not num(rss.get(n))]
missing += [n for n in ("peak_rss_mib",) if not num(s.get(n))]
if missing:
    print("memory-check-daemon: the run printed no number for %s (summary: %s)"
          % (", ".join(missing), summary_path), file=sys.stderr)
    sys.exit(1)
before = rss["before"]
q = [rss[n] for n in names[1:]]
h1, h2 = statistics.median(q[1:5]), statistics.median(q[5:10])
peak = s["peak_rss_mib"]

if update:
    json.dump({
        "circuit": "bench/lib-daemon.sh: zkp synth --shape porep --constraints 65520",
        "key": "zkp setup (INSECURE development key)",
        "proofs": proofs, "proof_clients": 2, "journal": True,
        "post_load_rss_mib": round(before, 1),
        "steady_rss_mib": round(h2, 1),
        "peak_rss_mib": round(peak, 1),
    }, open(baseline_path, "w"), indent=2)
    open(baseline_path, "a").write("\n")
    print("memory-check-daemon: wrote %s (steady %.1f MiB, peak %.1f MiB); review and commit it"
          % (baseline_path, h2, peak))
    sys.exit(0)

b = json.load(open(baseline_path))
for k in ("steady_rss_mib", "peak_rss_mib"):
    if not num(b.get(k)):
        print("memory-check-daemon: %s lacks %s" % (baseline_path, k), file=sys.stderr)
        sys.exit(1)
failed = False
def check(ok, what):
    global failed
    print("memory-check-daemon: %s %s" % ("ok  " if ok else "FAIL", what))
    failed |= not ok

grow = max(0.02 * h1, 6)
check(h2 - h1 <= grow, "quiet RSS, readings 6-10 %.1f MiB vs 2-5 %.1f MiB (growth limit %.1f)"
      % (h2, h1, grow))
lim = max(0.05 * q[0], 16)
check(max(q[1:]) <= q[0] + lim, "highest quiet RSS after the first tenth %.1f MiB vs %.1f MiB "
      "after it (limit +%.1f)" % (max(q[1:]), q[0], lim))
lim = max(0.10 * before, 16)
check(q[-1] <= before + lim, "RSS after the last proof %.1f MiB vs post-load %.1f MiB "
      "(limit +%.1f)" % (q[-1], before, lim))
lim = max(0.10 * b["steady_rss_mib"], 16)
check(h2 <= b["steady_rss_mib"] + lim, "steady RSS %.1f MiB vs baseline %.1f MiB (limit +%.1f)"
      % (h2, b["steady_rss_mib"], lim))
lim = max(0.10 * b["peak_rss_mib"], 16)
check(peak <= b["peak_rss_mib"] + lim, "peak RSS %.1f MiB vs baseline %.1f MiB (limit +%.1f)"
      % (peak, b["peak_rss_mib"], lim))
where = (" in %d s; details in %s" % (s.get("elapsed_s", 0), out_dir)) if out_dir else ""
print("memory-check-daemon: %s%s" % ("FAILED" if failed else "passed", where))
sys.exit(1 if failed else 0)
PY
