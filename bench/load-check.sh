#!/usr/bin/env bash
# Load on a real zkpd: many connections, many Status calls, many proofs.
#
#   bench/load-check.sh BUILD_DIR
#
# Builds nothing: uses BUILD_DIR's zkp, zkpd and zkpd-bench. Makes a
# synthetic PoRep-shaped circuit of 65,520 constraints (with its inputs the
# domain is 2^16) and its witness, INSECURE dev keys for it (`zkp setup`),
# starts zkpd on a Unix socket in a temporary directory with the circuit
# preloaded, waits until it answers Health and has loaded the circuit, runs
# `zkpd-bench load` and prints its JSON on stdout, then stops zkpd with
# SIGTERM and checks that it exits 0.
#
# A benchmark, not a test: it judges no figure. Exit 0 when every phase ran
# and zkpd stopped cleanly; 1 otherwise (a proof not DONE, zkpd dead or not
# exiting 0); 2 usage. Environment, for shorter runs:
#   LOAD_CONNECTIONS (1000)  LOAD_STATUS_CALLS (20000)  LOAD_PROOFS (200)
#   LOAD_PROOF_CLIENTS (4)   LOAD_RUNS (unset: the bench's defaults)
#   LOAD_KEEP=1 keeps the work directory (circuit, keys, config, zkpd.log).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
zkp="$build/src/tools/zkp"
zkpd="$build/src/daemon/zkpd"
bench="$build/bench/zkpd-bench"
for p in "$zkp" "$zkpd" "$bench"; do
  if [ ! -x "$p" ]; then
    echo "load-check: $p not built" >&2
    exit 2
  fi
done

connections=${LOAD_CONNECTIONS:-1000}
status_calls=${LOAD_STATUS_CALLS:-20000}
proofs=${LOAD_PROOFS:-200}
clients=${LOAD_PROOF_CLIENTS:-4}
runs=()
if [ -n "${LOAD_RUNS:-}" ]; then
  runs=(--runs "$LOAD_RUNS")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zkpd-load.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "${LOAD_KEEP:-}" ]; then
    echo "load-check: kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

if ! "$zkp" synth --shape porep --constraints 65520 -o "$work/porep16.pce" \
     --witness "$work/porep16.wtns" >"$work/prep.log" 2>&1 ||
   ! "$zkp" setup "$work/porep16.pce" -o "$work/porep16" >>"$work/prep.log" 2>&1; then
  cat "$work/prep.log" >&2
  echo "load-check: cannot make the circuit and keys" >&2
  exit 1
fi

addr="unix:$work/zkpd.sock"
cat >"$work/zkpd.conf" <<CONF
# INSECURE development key: a benchmark circuit only
[server]
listen = $addr
max_connections = $((connections + clients + 64))
[circuit.porep16]
pce = porep16.pce
key = porep16.INSECURE-DEV.params
key_format = bellman
preload = true
CONF

# zkpd takes every descriptor the hard limit allows; so does the bench.
ulimit -n "$(ulimit -Hn)"
"$zkpd" --config "$work/zkpd.conf" 2>"$work/zkpd.log" &
pid=$!

# Up when it answers Health and has logged the circuit's load.
up=
for _ in $(seq 1 600); do
  if ! kill -0 "$pid" 2>/dev/null; then
    break
  fi
  if grep -q "circuit porep16 load failed" "$work/zkpd.log"; then
    break
  fi
  if grep -q "circuit porep16 loaded" "$work/zkpd.log" &&
     "$bench" load --connect "$addr" --connections 1 --status-calls 0 --runs 1 \
       >/dev/null 2>&1; then
    up=1
    break
  fi
  sleep 0.2
done
if [ -z "$up" ]; then
  cat "$work/zkpd.log" >&2
  echo "load-check: zkpd did not come up with the circuit loaded" >&2
  exit 1
fi

status=0
"$bench" load --connect "$addr" --connections "$connections" --status-calls "$status_calls" \
  --circuit porep16 --witness "$work/porep16.wtns" --proofs "$proofs" \
  --proof-clients "$clients" "${runs[@]}" || status=1

kill -TERM "$pid"
zkpd_status=0
wait "$pid" || zkpd_status=$?
pid=
if [ "$zkpd_status" -ne 0 ]; then
  tail -n 40 "$work/zkpd.log" >&2
  echo "load-check: zkpd exited with status $zkpd_status after SIGTERM" >&2
  status=1
fi
exit "$status"
