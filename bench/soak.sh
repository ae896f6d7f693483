#!/usr/bin/env bash
# Soak on a real zkpd: connections, Status calls, then proofs with mixed
# priorities and cancels, checked for lost and duplicated results.
#
#   bench/soak.sh BUILD_DIR
#
# Builds nothing: uses BUILD_DIR's zkp, zkpd and zkpd-bench. Starts zkpd as
# bench/load-check.sh does (the same 2^16 synthetic circuit, INSECURE dev
# keys, bench/lib-daemon.sh) and runs `zkpd-bench load --mixed` with the
# circuit's .vk: 1000 connections, 200 proofs whose priorities cycle
# critical/high/normal/low, every tenth submitted and cancelled; every
# DONE proof verified, every request_id checked for exactly one result,
# 10 resubmits checked to attach, the daemon's job counters checked, and
# its RSS read at a quiet moment after each tenth. Prints the bench's JSON
# on stdout, then stops zkpd with SIGTERM and checks that it exits 0.
#
# A benchmark, not a test: it judges no timing or RSS figure. Exit 0 when
# every check passed and zkpd stopped cleanly; 1 otherwise; 2 usage.
# Environment, for shorter runs:
#   SOAK_CONNECTIONS (1000)  SOAK_STATUS_CALLS (2000)  SOAK_PROOFS (200)
#   SOAK_PROOF_CLIENTS (4)   SOAK_SEED (unset: the bench picks and prints one)
#   SOAK_KEEP=1 keeps the work directory (circuit, keys, config, zkpd.log).
#   SOAK_JOURNAL=1 runs zkpd with a job journal (server.journal_dir): every
#   proof has a request_id, so each is written to disk and replaced by its
#   result.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
# shellcheck source=bench/lib-daemon.sh
. "$(dirname "$0")/lib-daemon.sh"
daemon_init soak "$1" "${SOAK_KEEP:-}"

connections=${SOAK_CONNECTIONS:-1000}
status_calls=${SOAK_STATUS_CALLS:-2000}
proofs=${SOAK_PROOFS:-200}
clients=${SOAK_PROOF_CLIENTS:-4}
seed=()
if [ -n "${SOAK_SEED:-}" ]; then
  seed=(--seed "$SOAK_SEED")
fi

daemon_circuit
DAEMON_JOURNAL=${SOAK_JOURNAL:-} daemon_start $((connections + clients + 64))

status=0
"$bench" load --connect "$addr" --connections "$connections" --status-calls "$status_calls" \
  --circuit porep16 --witness "$work/porep16.wtns" --proofs "$proofs" \
  --proof-clients "$clients" --runs 1 --mixed --vk "$work/porep16.INSECURE-DEV.vk" \
  "${seed[@]}" || status=1

daemon_stop || status=1
exit "$status"
