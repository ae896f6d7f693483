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
# SIGTERM and checks that it exits 0 (bench/lib-daemon.sh).
#
# A benchmark, not a test: it judges no figure. Exit 0 when every phase ran
# and zkpd stopped cleanly; 1 otherwise (a proof not DONE, zkpd dead or not
# exiting 0); 2 usage. Environment, for shorter runs:
#   LOAD_CONNECTIONS (1000)  LOAD_STATUS_CALLS (20000)  LOAD_PROOFS (200)
#   LOAD_PROOF_CLIENTS (4)   LOAD_RUNS (unset: the bench's defaults)
#   LOAD_KEEP=1 keeps the work directory (circuit, keys, config, zkpd.log).
#   LOAD_WITNESS_BY_PATH=1 sends the witness as a path in server.witness_dir
#   instead of its bytes (the daemon reads the file itself).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
# shellcheck source=bench/lib-daemon.sh
. "$(dirname "$0")/lib-daemon.sh"
daemon_init load-check "$1" "${LOAD_KEEP:-}"

connections=${LOAD_CONNECTIONS:-1000}
status_calls=${LOAD_STATUS_CALLS:-20000}
proofs=${LOAD_PROOFS:-200}
clients=${LOAD_PROOF_CLIENTS:-4}
runs=()
by_path=()
if [ -n "${LOAD_WITNESS_BY_PATH:-}" ]; then
  by_path=(--witness-by-path)
fi
if [ -n "${LOAD_RUNS:-}" ]; then
  runs=(--runs "$LOAD_RUNS")
fi

daemon_circuit
daemon_start $((connections + clients + 64))

status=0
"$bench" load --connect "$addr" --connections "$connections" --status-calls "$status_calls" \
  --circuit porep16 --witness "$work/porep16.wtns" --proofs "$proofs" \
  --proof-clients "$clients" "${by_path[@]}" "${runs[@]}" || status=1

daemon_stop || status=1
exit "$status"
