#!/usr/bin/env bash
# A sparse 32 GiB C1 against the 32 GiB PoRep partition circuit, with no key
# and no .pce: `zkp porep seal --sparse` writes the C1 (about a second), and
# `zkp porep check --sector-size 32GiB --partition 7` derives partition 7's
# public inputs from the C1's public data (challenges, parents, challenged
# labels), synthesizes the partition's 130,278,541 rows natively and checks
# each against the witness built from the C1 as it is emitted (one
# streaming pass). This is the production shape end to end (11 layers,
# 18 challenges, trees C and R 8-8-0 with Sub paths, a 30-level tree D)
# for one partition; the other partitions' public inputs are derived in
# test_porep_sparse, and the .pce mode of the check is run.sh's, at 2 KiB.
# The same C1 with one flipped byte in a data leaf of partition 7's first
# challenge must fail, naming a row of that challenge.
# Usage: check-32g.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test porep-32g "$1" "$2"

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
seed=$(printf '%02x' $(seq 101 132) | tr -d '\n')

SECONDS=0
expect 0 "seal a sparse 32 GiB sector" "$zkp" porep seal --sparse --sector-size 32GiB \
	--random 32 --prover-id "$prover" --sector-id 32 --ticket "$ticket" --seed "$seed" \
	-o c1.json
check "it is the 32 GiB V1_1 proof, 10 partitions of 18 challenges" "$(said)" \
	grep -q 'StackedDrg32GiBV1_1, 1073741824 nodes, 10 partitions of 18 challenges' out.txt
echo "# $(grep -E '^(computed|c1) ' out.txt | tr '\n' ' ')"

expect 0 "partition 7 passes every row of the native 32 GiB circuit" "$zkp" porep check \
	--c1 c1.json --sector-size 32GiB --partition 7
check "it checked all 130,278,541 rows" "$(said)" \
	grep -q 'partition 7 *passed: 130278541 rows satisfied (streamed)' out.txt
echo "# $(grep -E '^(partition|checked) ' out.txt | tr '\n' ' ')"

# "leaf" comes 17 times a challenge (tree D, tree R, c_x, 14 parents), tree
# D's first: partition 7's first challenge is challenge 126 of the C1. The
# flip keeps the byte a byte and the value below r.
perl -e 'my ($n) = @ARGV; local $/; my $s = <STDIN>; my $p = -1;
	for (0 .. $n) { $p = index($s, "\"leaf\":[", $p + 1); die "no leaf #$n\n" if $p < 0 }
	pos($s) = $p + 8; $s =~ /\G[0-9]*/g; my $d = pos($s) - 1;
	substr($s, $d, 1) = substr($s, $d, 1) ^ "\x01"; print $s' $((126 * 17)) \
	<c1.json >bad.json
expect 1 "a flipped data leaf fails the check" "$zkp" porep check --c1 bad.json \
	--sector-size 32GiB --partition 7
row=$(sed -n 's/.*FAILED: row \([0-9]*\) of 130278541.*/\1/p' out.txt)
# rows 0-570 are the global part, then 7,237,665 rows a challenge
check "the failing row is in partition 7's first challenge (row $row)" "$(said)" \
	test -n "$row" -a "${row:-0}" -ge 571 -a "${row:-0}" -lt $((571 + 7237665))
check "stderr names the challenge" "$(said)" grep -q "row $row (challenge 0) is not satisfied" err.txt

echo "# wall time ${SECONDS} s"
echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
