# shellcheck shell=bash
# Sourced by bench/load-check.sh and bench/soak.sh: a zkpd on a synthetic
# PoRep-shaped circuit of 65,520 constraints (with its inputs the domain is
# 2^16) and INSECURE development keys, in a temporary work directory.
#
#   daemon_init NAME BUILD_DIR KEEP
#                                sets zkp, zkpd, bench (exit 2 when one is not
#                                built), work and addr; traps EXIT to kill zkpd
#                                and remove work (kept when KEEP is not empty)
#   daemon_circuit               porep16.pce, porep16.wtns and
#                                porep16.INSECURE-DEV.{params,vk} in work
#   daemon_start MAX_CONNECTIONS writes zkpd.conf (with server.journal_dir =
#                                work/journal when DAEMON_JOURNAL is set), starts zkpd on the Unix
#                                socket $addr (log: work/zkpd.log) and waits
#                                until it answers Health with porep16 loaded
#   daemon_stop                  SIGTERM; returns 1 unless zkpd exits 0
#
# Messages go to stderr prefixed with NAME; failures before zkpd runs exit 1.

daemon_init() {
  name=$1
  keep=$3
  if ! build=$(cd "$2" 2>/dev/null && pwd); then
    echo "$name: $2: no such directory" >&2
    exit 2
  fi
  zkp="$build/src/tools/zkp"
  zkpd="$build/src/daemon/zkpd"
  bench="$build/bench/zkpd-bench"
  for p in "$zkp" "$zkpd" "$bench"; do
    if [ ! -x "$p" ]; then
      echo "$name: $p not built" >&2
      exit 2
    fi
  done
  work=$(mktemp -d "${TMPDIR:-/tmp}/zkpd-$name.XXXXXX")
  addr="unix:$work/zkpd.sock"
  pid=
  trap daemon_cleanup EXIT
}

daemon_cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$keep" ]; then
    echo "$name: kept $work" >&2
  else
    rm -rf "$work"
  fi
}

daemon_circuit() {
  if ! "$zkp" synth --shape porep --constraints 65520 -o "$work/porep16.pce" \
       --witness "$work/porep16.wtns" >"$work/prep.log" 2>&1 ||
     ! "$zkp" setup "$work/porep16.pce" -o "$work/porep16" >>"$work/prep.log" 2>&1; then
    cat "$work/prep.log" >&2
    echo "$name: cannot make the circuit and keys" >&2
    exit 1
  fi
}

daemon_start() {
  cat >"$work/zkpd.conf" <<CONF
# INSECURE development key: a benchmark circuit only
[server]
listen = $addr
max_connections = $1
witness_dir = $work
${DAEMON_JOURNAL:+journal_dir = $work/journal}
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
  local up=
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
    echo "$name: zkpd did not come up with the circuit loaded" >&2
    exit 1
  fi
}

daemon_stop() {
  local st=0
  kill -TERM "$pid"
  wait "$pid" || st=$?
  pid=
  if [ "$st" -ne 0 ]; then
    tail -n 40 "$work/zkpd.log" >&2
    echo "$name: zkpd exited with status $st after SIGTERM" >&2
    return 1
  fi
}
