#!/usr/bin/env bash
# The zkp tool end to end on a synthetic PoRep-shaped circuit: synth, inspect
# (circuit and keys), check, setup, prove, verify (binary and JSON proofs,
# every verifying-key form), export-vk, dev-key (a 2 KiB circuit's
# development key in a directory), and the exit codes of refusals.
# Usage: run.sh ZKP WORKDIR
set -u
zkp=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# expect CODE DESCRIPTION CMD...: runs CMD, compares its exit status
expect() {
  local want=$1 what=$2
  shift 2
  "$@" >out.txt 2>err.txt
  local got=$?
  if [ "$got" -eq "$want" ]; then ok "$what"; else
    bad "$what (exit $got, wanted $want)"; cat out.txt err.txt; fi
}

expect 0 "synth" "$zkp" synth --shape porep --constraints 4000 -o c.pce --witness c.wtns --seed 7
expect 0 "inspect circuit" "$zkp" inspect --json c.pce
grep -q '"constraints": 4000' out.txt && ok "inspect reports 4000 constraints" ||
  bad "inspect output: $(cat out.txt)"
expect 0 "check" "$zkp" check c.pce c.wtns
expect 0 "setup" "$zkp" setup c.pce -o c --seed 11
[ -f c.INSECURE-DEV.params ] && [ -f c.INSECURE-DEV.vk ] && ok "dev keys named INSECURE-DEV" ||
  bad "dev key files missing"
grep -qi insecure err.txt && ok "setup warns" || bad "setup printed no warning"
expect 0 "inspect key" "$zkp" inspect c.INSECURE-DEV.params
grep -q "proving key, bellman .params" out.txt && ok "inspect names the key format" ||
  bad "inspect key output: $(cat out.txt)"
expect 0 "inspect vk" "$zkp" inspect c.INSECURE-DEV.vk

expect 0 "prove" "$zkp" prove --key c.INSECURE-DEV.params --pce c.pce --witness c.wtns \
  -o p.bin --public pub.json
[ "$(stat -c %s p.bin)" -eq 192 ] && ok "proof is 192 bytes" || bad "proof size"
cpus=$(getconf _NPROCESSORS_ONLN)
grep -q ", $cpus threads)" err.txt && ok "prove runs on every online CPU ($cpus)" ||
  bad "prove's threads: $(head -n 1 err.txt)"
expect 0 "prove --threads 1" "$zkp" prove --key c.INSECURE-DEV.params --pce c.pce \
  --witness c.wtns -o p1.bin --threads 1
grep -q ", 1 threads)" err.txt && ok "--threads 1 is honoured" ||
  bad "prove --threads 1: $(head -n 1 err.txt)"
expect 0 "verify with .vk" "$zkp" verify --vk c.INSECURE-DEV.vk --proof p.bin --public pub.json
expect 0 "verify with .params" "$zkp" verify --vk c.INSECURE-DEV.params --proof p.bin --public pub.json
expect 0 "export-vk json" "$zkp" export-vk c.INSECURE-DEV.params -o vk.json
expect 0 "export-vk bellman" "$zkp" export-vk vk.json -o round.vk --json
expect 0 "export-vk .vk" "$zkp" export-vk c.INSECURE-DEV.params -o again.vk
cmp -s again.vk c.INSECURE-DEV.vk && ok "exported .vk equals setup's" || bad "exported .vk differs"
expect 0 "verify with verification_key.json" "$zkp" verify --vk vk.json --proof p.bin --public pub.json
expect 0 "prove --json" "$zkp" prove --key c.INSECURE-DEV.params --pce c.pce --witness c.wtns \
  -o proof.json --json --public pub2.json
expect 0 "verify proof.json" "$zkp" verify --vk vk.json --proof proof.json --public pub2.json

# refusals
cp p.bin t.bin
printf '\x01' | dd of=t.bin bs=1 seek=100 conv=notrunc status=none
"$zkp" verify --vk c.INSECURE-DEV.vk --proof t.bin --public pub.json >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && ok "tampered proof refused (exit $rc)" || bad "tampered proof accepted"
# the first public input replaced by 12345 (its real value is a packed hash)
sed '0,/"[0-9]*"/s//"12345"/' pub.json >pub_bad.json
cmp -s pub.json pub_bad.json && bad "public input not tampered"
expect 1 "tampered public input invalid" "$zkp" verify --vk c.INSECURE-DEV.vk --proof p.bin --public pub_bad.json
expect 2 "short proof file" "$zkp" verify --vk c.INSECURE-DEV.vk --proof pub.json.missing
head -c 100 p.bin >short.bin
expect 2 "truncated proof" "$zkp" verify --vk c.INSECURE-DEV.vk --proof short.bin --public pub.json
expect 2 "usage" "$zkp" prove --key c.INSECURE-DEV.params
head -c 5000 c.pce >trunc.pce
expect 1 "truncated circuit refused" "$zkp" inspect trunc.pce
# a witness of another circuit: wrong length
"$zkp" synth --shape porep --constraints 3000 -o d.pce --witness d.wtns >/dev/null 2>&1
expect 1 "wrong witness refused" "$zkp" prove --key c.INSECURE-DEV.params --pce c.pce \
  --witness d.wtns -o q.bin
expect 1 "check refuses wrong witness" "$zkp" check c.pce d.wtns

# Filecoin PoRep: a test shape's circuit (1 challenge, 2 layers, 8 nodes,
# tree 8: 1,199,620 rows), its label, and a development sector's witness.
expect 0 "porep circuit --count --json" "$zkp" porep circuit --nodes 8 --layers 2 \
  --challenges 1 --tree 8-0-0 --count --json
grep -q '"constraints": 1199620, "rows": 1199642, "inputs": 22,' out.txt &&
  ok "porep test shape counts 1,199,620 rows and 22 inputs" || bad "porep count: $(cat out.txt)"
expect 0 "porep circuit -o" "$zkp" porep circuit --nodes 8 --layers 2 --challenges 1 --tree 8 \
  -o porep.pce
expect 0 "inspect porep" "$zkp" inspect --json porep.pce
grep -q '"circuit": {"kind": "filecoin-porep", "sector_bytes": 0, "nodes": 8, "layers": 2, "challenges": 1, "tree": "8-0-0"}' out.txt &&
  ok "inspect names the PoRep shape" || bad "inspect porep: $(cat out.txt)"
expect 0 "porep dev-witness" "$zkp" porep dev-witness --nodes 8 --layers 2 --challenges 1 \
  --tree 8 --seed 9 -o porep.wtns
expect 0 "check porep witness" "$zkp" check porep.pce porep.wtns
expect 0 "porep circuit -o --in-memory" "$zkp" porep circuit --nodes 8 --layers 2 --challenges 2 \
  --tree 8 -o porep2m.pce --in-memory --threads 2
expect 0 "porep circuit -o (2 challenges)" "$zkp" porep circuit --nodes 8 --layers 2 --challenges 2 \
  --tree 8 -o porep2.pce
cmp -s porep2.pce porep2m.pce && ok "--in-memory writes the streaming builder's bytes" ||
  bad "--in-memory and streaming files differ"
expect 2 "porep --threads without --in-memory" "$zkp" porep circuit --nodes 8 --layers 2 \
  --challenges 1 --tree 8 -o porep3.pce --threads 2
grep -q "threads is for --in-memory" err.txt && ok "--threads alone named" ||
  bad "--threads alone message: $(cat err.txt)"
expect 2 "porep --in-memory --count" "$zkp" porep circuit --nodes 8 --layers 2 --challenges 1 \
  --tree 8 --count --in-memory
expect 2 "porep unknown size" "$zkp" porep circuit --sector-size 4KiB --count
grep -q "2KiB, 8MiB, 512MiB, 32GiB and 64GiB" err.txt && ok "unknown size names the sizes" ||
  bad "unknown size message: $(cat err.txt)"
expect 2 "porep bad layers" "$zkp" porep circuit --nodes 64 --layers 3 --challenges 1 --tree 8 --count
grep -q "layers = 3" err.txt && ok "bad layers named" || bad "bad layers message: $(cat err.txt)"
expect 2 "porep bad arity" "$zkp" porep circuit --nodes 64 --layers 2 --challenges 1 --tree 16 --count
expect 2 "porep no output" "$zkp" porep circuit --sector-size 2KiB

# Filecoin Fallback PoSt: rust-fil-proofs' test shape (3 sectors x 5
# challenges, base-8 trees of 64 leaves: 16,869 rows), its label, and the
# 32 GiB WinningPoSt's 68 inputs.
expect 0 "post circuit --count --json" "$zkp" post circuit --kind window --nodes 64 \
  --sectors 3 --challenges 5 --tree 8-0-0 --count --json
grep -q '"constraints": 16869, "rows": 16888, "inputs": 19,' out.txt &&
  ok "PoSt test shape counts 16,869 rows and 19 inputs" || bad "post count: $(cat out.txt)"
expect 0 "post circuit -o" "$zkp" post circuit --kind window --sector-size 2KiB -o post.pce
expect 0 "inspect post" "$zkp" inspect --json post.pce
grep -q '"circuit": {"kind": "filecoin-post-window", "sector_bytes": 2048, "nodes": 64, "sectors": 2, "challenges": 10, "tree": "8-0-0"}' out.txt &&
  ok "inspect names the PoSt shape" || bad "inspect post: $(cat out.txt)"
expect 0 "winning post count" "$zkp" post circuit --kind winning --sector-size 32GiB --count --json
grep -q '"inputs": 68,' out.txt && ok "WinningPoSt 32GiB has 68 inputs" || bad "winning: $(cat out.txt)"
expect 2 "post unknown kind" "$zkp" post circuit --kind snap --sector-size 2KiB --count
grep -q "'snap'" err.txt && ok "unknown kind named" || bad "unknown kind message: $(cat err.txt)"
expect 2 "post no sectors" "$zkp" post circuit --kind window --nodes 64 --sectors 0 \
  --challenges 1 --tree 8 --count
grep -q "sectors = 0" err.txt && ok "zero sectors named" || bad "zero sectors: $(cat err.txt)"
expect 0 "snap circuit count" "$zkp" snap circuit --sector-size 1KiB --count --json
grep -q '"constraints": 1248389, "rows": 1248394, "inputs": 5,' out.txt &&
  ok "SnapDeals 1KiB counts 1,248,389 rows and 5 inputs" || bad "snap count: $(cat out.txt)"
expect 0 "snap circuit -o" "$zkp" snap circuit --sector-size 2KiB -o snap.pce
expect 0 "inspect snap" "$zkp" inspect --json snap.pce
grep -q '"circuit": {"kind": "filecoin-snap", "sector_bytes": 2048, "nodes": 64, "partitions": 1, "challenges": 10, "apex_leaves": 8, "tree": "8-0-0"}' out.txt &&
  ok "inspect names the SnapDeals shape" || bad "inspect snap: $(cat out.txt)"
expect 2 "snap bad size" "$zkp" snap circuit --sector-size 3KiB --count
grep -q "3072 bytes" err.txt && ok "bad SnapDeals size named" || bad "snap size: $(cat err.txt)"

# zkp dev-key: a 2 KiB circuit and its INSECURE development key in a
# directory (the WinningPoSt one: seconds), kept on a second run.
mkdir keys
expect 0 "dev-key post-winning-2k -o keys" "$zkp" dev-key post-winning-2k -o keys
for f in post-winning-2k.pce post-winning-2k.INSECURE-DEV.params \
  post-winning-2k.INSECURE-DEV.params.zkpc post-winning-2k.INSECURE-DEV.vk \
  post-winning-2k.pce.sha256; do
  [ -s "keys/$f" ] && ok "dev-key wrote $f" || bad "dev-key wrote no $f: $(ls keys)"
done
grep -q '^\[circuit.post-winning-2k\]$' out.txt && grep -q '^winning_post_sector_size = 2K$' out.txt &&
  grep -q "^key = $PWD/keys/post-winning-2k.INSECURE-DEV.params$" out.txt &&
  ok "dev-key prints the circuit's configuration section" || bad "dev-key section: $(cat out.txt)"
grep -q INSECURE out.txt && grep -q 'WARNING.*INSECURE' err.txt &&
  ok "dev-key says the key is INSECURE on stdout and stderr" || bad "dev-key warning: $(cat out.txt err.txt)"
expect 0 "dev-key again" "$zkp" dev-key post-winning-2k -o keys
grep -q 'was made for this circuit: kept' err.txt && ok "a second dev-key keeps the key" ||
  bad "second dev-key: $(cat err.txt)"
expect 2 "dev-key of an unknown circuit" "$zkp" dev-key porep-32g -o keys
grep -q "unknown circuit 'porep-32g': porep-2k, snap-2k" err.txt && ok "it lists the circuits" ||
  bad "unknown dev-key circuit: $(cat err.txt)"
expect 2 "dev-key into a missing directory" "$zkp" dev-key post-winning-2k -o no-such-dir
grep -q 'no-such-dir: not a directory' err.txt && ok "it names the directory" ||
  bad "missing dev-key dir: $(cat err.txt)"
if [ "$(id -u)" -eq 0 ]; then
  expect 0 "dev-key --owner nobody --group $(id -gn nobody)" "$zkp" dev-key post-winning-2k \
    -o keys --owner nobody --group "$(id -gn nobody)"
  [ "$(stat -c %U keys/post-winning-2k.INSECURE-DEV.params.zkpc)" = nobody ] &&
    ok "--owner gives the files, cache included, to nobody" ||
    bad "dev-key --owner: $(ls -l keys)"
  mkdir owned && chown nobody owned
  expect 0 "dev-key as root into a directory of nobody's" "$zkp" dev-key post-winning-2k -o owned
  [ "$(stat -c %U owned/post-winning-2k.pce)" = nobody ] &&
    ok "as root, the files get the directory's owner" || bad "dev-key ownership: $(ls -l owned)"
fi

echo "zkp_tool: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
