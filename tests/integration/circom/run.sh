#!/usr/bin/env bash
# Real circom circuits over BLS12-381, end to end:
#   run.sh ZKP_BINARY WORK_DIR
# For each circuit in tests/vectors/circom (tiny, mid ~2^10, poseidon ~2^14):
# circom2 --r1cs --wasm --prime bls12381, snarkjs wtns calculate, zkp compile,
# then zkp check must pass on the .wtns and on the same values as a raw array,
# and must fail, naming the constraint that ref.js (an independent BigInt
# evaluation) finds first, on a witness with one aux value changed. Also: a
# circuit compiled with circom's default prime (BN254) is refused by name.
#
# Tools come from npm-tools.sh (cached install); exit 77 when it skips.
# WORK_DIR is wiped and rebuilt; its contents are left for inspection.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
vectors=$(cd "$here/../../vectors/circom" && pwd)
[ $# -eq 2 ] || { echo "usage: run.sh ZKP_BINARY WORK_DIR" >&2; exit 2; }
zkp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2

t0=$(date +%s.%N)
bin=$("$here/npm-tools.sh") || exit $?
circom2=$bin/circom2
snarkjs=$bin/snarkjs
t_tools=$(date +%s.%N)

passed=0
failed=0
ok() {
  echo "ok: $*"
  passed=$((passed + 1))
}
bad() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
elapsed() {
  awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

# circom2's WASI build only reads files below its working directory, so each
# circuit is copied into its own directory and compiled from there.
build() { # name prime
  local d=$work/$1${2:+-$2} src=$1
  mkdir -p "$d"
  cp "$vectors/$src.circom" "$d/"
  (cd "$d" && "$circom2" "$src.circom" --r1cs --wasm ${2:+--prime $2} -o . >circom.log 2>&1) || {
    cat "$d/circom.log"
    return 1
  }
}

for c in tiny mid poseidon; do
  d=$work/$c-bls12381
  t=$(date +%s.%N)
  if ! build "$c" bls12381; then
    bad "$c: circom2 failed"
    continue
  fi
  if ! "$snarkjs" wtns calculate "$d/${c}_js/$c.wasm" "$vectors/$c.input.json" "$d/$c.wtns" \
       >"$d/snarkjs.log" 2>&1; then
    cat "$d/snarkjs.log"
    bad "$c: snarkjs wtns calculate failed"
    continue
  fi
  t_built=$(elapsed "$t")
  if ! ref=$(node "$here/ref.js" "$d/$c.r1cs" "$d/$c.wtns" "$d"); then
    bad "$c: the reference evaluation refused circom's own output"
    continue
  fi
  field() { node -e "process.stdout.write(String(JSON.parse(process.argv[1])['$1']))" "$ref"; }
  m=$(field constraints)
  inputs=$(field inputs)
  aux=$(field aux)
  wire=$(field tampered_wire)
  row=$(field first_failing_row)

  t=$(date +%s.%N)
  if "$zkp" compile "$d/$c.r1cs" -o "$d/$c.pce" >"$d/compile.out" 2>&1; then
    if grep -q "$c.pce: $inputs inputs (including ONE), $aux aux, $m constraints" "$d/compile.out"; then
      ok "$c: zkp compile ($m constraints, $inputs inputs, $aux aux)"
    else
      cat "$d/compile.out"
      bad "$c: zkp compile printed other dimensions than the reference ($m constraints, $inputs inputs, $aux aux)"
    fi
  else
    cat "$d/compile.out"
    bad "$c: zkp compile failed"
    continue
  fi

  for wit in "$c.wtns" witness.raw; do
    if out=$("$zkp" check "$d/$c.pce" "$d/$wit" 2>&1) && grep -q "^satisfied: $m constraints" <<<"$out"; then
      ok "$c: zkp check $wit"
    else
      echo "$out"
      bad "$c: zkp check $wit did not pass"
    fi
  done

  for wit in tampered.wtns tampered.raw; do
    set +e
    out=$("$zkp" check "$d/$c.pce" "$d/$wit" 2>&1)
    rc=$?
    set -e
    if [ $rc -eq 1 ] && grep -q "first failing constraint $row of $m" <<<"$out"; then
      ok "$c: zkp check $wit (wire $wire + 1) fails at constraint $row"
    else
      echo "$out"
      bad "$c: zkp check $wit exited $rc; expected 1 naming constraint $row (wire $wire + 1)"
    fi
  done
  echo "   $c: circom2 + snarkjs $t_built s, zkp compile + 4 checks $(elapsed "$t") s"
done

# circom's default prime is BN254's r: zkp compile must refuse it by name.
if build tiny ""; then
  set +e
  out=$("$zkp" compile "$work/tiny/tiny.r1cs" -o "$work/tiny/tiny.pce" 2>&1)
  rc=$?
  set -e
  if [ $rc -eq 1 ] && grep -q "BN254" <<<"$out" && grep -q "ERR_WRONG_PRIME" <<<"$out" &&
     [ ! -e "$work/tiny/tiny.pce" ]; then
    ok "tiny over BN254: refused (${out#zkp compile: })"
  else
    echo "$out"
    bad "tiny over BN254: zkp compile exited $rc; expected 1 naming BN254"
  fi
else
  bad "tiny over BN254: circom2 failed"
fi

echo "tools ready in $(awk -v a="$t0" -v b="$t_tools" 'BEGIN { printf "%.2f", b - a }') s, total $(elapsed "$t0") s"
echo "circom: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
