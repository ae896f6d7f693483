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
# Groth16 interop on the same circuits: zkp dev-ptau writes an INSECURE
# development powers of tau of the circuit's own power (so the top Lagrange
# block, the one snarkjs truncates, is used), snarkjs groth16 setup makes the
# .zkey from it, and then: zkp's proof from that .zkey passes snarkjs groth16
# verify; snarkjs's proof passes zkp verify (vk.json and the .zkey); both
# produce the same public.json; a mixed proof (zkp's A, snarkjs's B and C) and
# a public input plus one are refused by both verifiers. tiny is also set up
# from a bigger ptau (power + 2), which takes the untruncated path; and at a
# small power the dev ptau must equal, byte for byte, what snarkjs's own
# `powersoftau prepare phase2` derives from its first sections.
#
# ZKPD_CIRCOM_INTEROP_MAX_POWER=K leaves out the Groth16 interop of circuits
# above power K: snarkjs's setup of poseidon (power 14) alone takes 75 s on 2
# cores, so integration_circom stops at 10 and integration_circom_large
# (label long) runs everything.
# Tools come from npm-tools.sh (cached install); exit 77 when it skips.
# WORK_DIR is wiped and rebuilt; its contents are left for inspection.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
vectors=$(cd "$here/../../vectors/circom" && pwd)
[ $# -eq 2 ] || { echo "usage: run.sh ZKP_BINARY WORK_DIR" >&2; exit 2; }
zkp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
max_power=${ZKPD_CIRCOM_INTEROP_MAX_POWER:-99}

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

# Runs a command quietly into a log; on failure shows the log.
quiet() { # log cmd...
  local log=$1
  shift
  if "$@" >"$log" 2>&1; then
    return 0
  fi
  tail -n 20 "$log"
  return 1
}

# Exit status of a verifier on an input that must be refused: 1 for both.
refused() { # what cmd...
  local what=$1 rc
  shift
  set +e
  "$@" >"$sub/refused.log" 2>&1
  rc=$?
  set -e
  if [ $rc -eq 1 ]; then
    ok "$what: refused"
  else
    cat "$sub/refused.log"
    bad "$what: exited $rc, expected 1 (refused)"
  fi
}

# Groth16 both ways between zkp and snarkjs on circuit c (built in d), with a
# dev ptau of the given power. tag names a second setup of the same circuit.
interop() { # c d power [tag]
  local c=$1 d=$2 power=$3 tag=${4:-}
  local name=$c${tag:+-$tag} t
  sub=$d/g16${tag:+-$tag}
  mkdir -p "$sub"
  local ptau=$sub/p$power.INSECURE-DEV.ptau zkey=$sub/$c.zkey vk=$sub/vk.json

  t=$(date +%s.%N)
  if ! quiet "$sub/dev-ptau.log" "$zkp" dev-ptau --power "$power" -o "$ptau"; then
    bad "$name: zkp dev-ptau --power $power failed"
    return 0
  fi
  local t_ptau
  t_ptau=$(elapsed "$t")
  t=$(date +%s.%N)
  if ! quiet "$sub/setup.log" "$snarkjs" groth16 setup "$d/$c.r1cs" "$ptau" "$zkey" ||
     ! quiet "$sub/export.log" "$snarkjs" zkey export verificationkey "$zkey" "$vk"; then
    bad "$name: snarkjs groth16 setup from the dev ptau (power $power) failed"
    return 0
  fi
  local t_setup
  t_setup=$(elapsed "$t")
  ok "$name: snarkjs groth16 setup accepts zkp dev-ptau --power $power"

  t=$(date +%s.%N)
  if quiet "$sub/prove.log" "$zkp" prove --key "$zkey" --pce "$d/$c.pce" --witness "$d/$c.wtns" \
       --json -o "$sub/zkp-proof.json" --public "$sub/zkp-public.json"; then
    if quiet "$sub/verify.log" "$snarkjs" groth16 verify "$vk" "$sub/zkp-public.json" "$sub/zkp-proof.json"; then
      ok "$name: zkp prove --key .zkey, snarkjs groth16 verify: OK"
    else
      bad "$name: snarkjs groth16 verify refused zkp's proof"
    fi
  else
    bad "$name: zkp prove --key $c.zkey failed"
  fi
  local t_prove
  t_prove=$(elapsed "$t")

  if ! quiet "$sub/sj-prove.log" "$snarkjs" groth16 prove "$zkey" "$d/$c.wtns" \
         "$sub/sj-proof.json" "$sub/sj-public.json"; then
    bad "$name: snarkjs groth16 prove failed"
    return 0
  fi
  local key
  for key in "$vk" "$zkey"; do
    if quiet "$sub/zkp-verify.log" "$zkp" verify --vk "$key" --proof "$sub/sj-proof.json" \
         --public "$sub/sj-public.json"; then
      ok "$name: snarkjs groth16 prove, zkp verify --vk $(basename "$key"): valid"
    else
      bad "$name: zkp verify --vk $(basename "$key") refused snarkjs's proof"
    fi
  done
  [ -f "$sub/zkp-public.json" ] || return 0

  if node -e '
      const fs = require("fs");
      const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f)));
      process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);' \
       "$sub/zkp-public.json" "$sub/sj-public.json"; then
    ok "$name: zkp and snarkjs write the same public.json"
  else
    bad "$name: public.json differs: zkp $(tr -d ' \n' <"$sub/zkp-public.json"), snarkjs $(tr -d ' \n' <"$sub/sj-public.json")"
  fi

  # Tampering: zkp's pi_a with snarkjs's pi_b and pi_c (every point valid and
  # on the curve, the proof not), and the first public input plus one.
  if ! node -e '
      const fs = require("fs");
      const [zp, sp, pub, outProof, outPub] = process.argv.slice(1);
      const a = JSON.parse(fs.readFileSync(zp)), b = JSON.parse(fs.readFileSync(sp));
      fs.writeFileSync(outProof, JSON.stringify({ ...b, pi_a: a.pi_a }));
      const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
      const p = JSON.parse(fs.readFileSync(pub));
      p[0] = ((BigInt(p[0]) + 1n) % r).toString();
      fs.writeFileSync(outPub, JSON.stringify(p));' \
    "$sub/zkp-proof.json" "$sub/sj-proof.json" "$sub/sj-public.json" \
    "$sub/mixed-proof.json" "$sub/tampered-public.json"; then
    bad "$name: could not write the tampered proof and public input"
    return 0
  fi
  refused "$name: mixed proof, snarkjs groth16 verify" \
    "$snarkjs" groth16 verify "$vk" "$sub/sj-public.json" "$sub/mixed-proof.json"
  refused "$name: mixed proof, zkp verify" \
    "$zkp" verify --vk "$vk" --proof "$sub/mixed-proof.json" --public "$sub/sj-public.json"
  refused "$name: public input + 1, snarkjs groth16 verify" \
    "$snarkjs" groth16 verify "$vk" "$sub/tampered-public.json" "$sub/sj-proof.json"
  refused "$name: public input + 1, zkp verify" \
    "$zkp" verify --vk "$vk" --proof "$sub/sj-proof.json" --public "$sub/tampered-public.json"
  echo "   $name: dev-ptau (power $power) $t_ptau s, snarkjs setup + export vk $t_setup s, zkp prove + snarkjs verify $t_prove s"
}

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

  # snarkjs's circuit power: floor(log2(m + nPublic)) + 1.
  power=$(node -e 'const v = Number(process.argv[1]); let k = 0; while ((2 ** (k + 1)) <= v) k++; console.log(k + 1)' \
            "$((m + inputs - 1))")
  if [ "$power" -gt "$max_power" ]; then
    echo "   $c: Groth16 interop at power $power not run (ZKPD_CIRCOM_INTEROP_MAX_POWER=$max_power)"
    continue
  fi
  interop "$c" "$d" "$power"
  [ "$c" != tiny ] || interop "$c" "$d" "$((power + 2))" big
done

# The dev ptau against snarkjs's own phase-2 preparation of its sections 2-7.
t=$(date +%s.%N)
p4=$work/p4.INSECURE-DEV.ptau
if quiet "$work/p4.log" "$zkp" dev-ptau --power 4 -o "$p4" &&
   quiet "$work/p4-prepare.log" "$snarkjs" powersoftau prepare phase2 "$p4" "$work/p4-prepared.ptau"; then
  if cmp -s "$p4" "$work/p4-prepared.ptau"; then
    ok "zkp dev-ptau --power 4 equals snarkjs powersoftau prepare phase2 of it, byte for byte ($(elapsed "$t") s)"
  else
    bad "zkp dev-ptau --power 4: $(cmp "$p4" "$work/p4-prepared.ptau" 2>&1 | head -1) after snarkjs powersoftau prepare phase2"
  fi
else
  bad "zkp dev-ptau --power 4 or snarkjs powersoftau prepare phase2 failed"
fi

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
