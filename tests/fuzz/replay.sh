#!/usr/bin/env bash
# The fuzz_regressions test: runs each target's replay program (replay.c)
# on its seed corpus and on every input that once crashed it.
#   replay.sh BIN_DIR SRC_DIR TARGET...
set -euo pipefail
bin=$1 src=$2
shift 2
for t in "$@"; do
  dirs=()
  for d in "$src/corpus/$t" "$src/regressions/$t"; do
    if [ -d "$d" ]; then
      dirs+=("$d")
    fi
  done
  if [ ${#dirs[@]} -gt 0 ]; then
    "$bin/fuzz_${t}_replay" "${dirs[@]}"
  fi
done
