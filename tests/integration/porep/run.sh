#!/usr/bin/env bash
# PoRep C2 through a real zkpd, end to end: 2 KiB sectors sealed with the
# development sealer (interactive and synthetic proof versions, the FFI's
# JSON and the lotus-bench/Curio wrapper) and with the sparse one (`zkp
# porep seal --sparse`: only what the C1 reveals is computed), the sparse
# and the synthetic one proved with `zkpctl porep` (sent by value and by
# path; the full interactive seal is proved by integration_grpc_curio and
# integration_install_walk, and checked row by row here) on the 2 KiB PoRep
# circuit with an INSECURE development key (scripts/porep-dev-key: made
# once, then cached), and verified with `zkp porep verify`, which derives
# the public inputs from the C1's public data and recomputes replica_id.
# `zkp porep check` passes the full and the sparse C1 against the circuit's
# rows, from the .pce and synthesized natively, and names the same first
# failing row of a tampered one either way. C1s with a flipped byte in a
# label, a path or a root must fail with an error and never yield a proof.
# Also: a C1 on a circuit that is not a PoRep circuit, a .pce that is not
# the configured size's, the metrics, a sector job's result found again by
# request id after a restart (the journal), and zkpctl porep's times: the
# sector job's spans and each partition job's add up to their totals.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test porep "$1" "$2"

if ! keydir=$("$src/scripts/porep-dev-key" "$build"); then
	bad "the 2 KiB development key is made or found in the cache" "scripts/porep-dev-key failed"
	exit 1
fi
ok "the 2 KiB development key is made or found in the cache ($keydir)"
vk=$keydir/porep-2k.INSECURE-DEV.vk

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
seed=$(printf '%02x' $(seq 101 132) | tr -d '\n')
seal() { # OUT SECTOR MODE [--wrap]
	local out=$1 sector=$2 mode=$3
	shift 3
	expect 0 "seal a 2 KiB $mode sector ($out)" "$zkp" porep seal --sector-size 2KiB \
		--random "$sector" --prover-id "$prover" --sector-id "$sector" --ticket "$ticket" \
		--seed "$seed" --mode "$mode" "$@" -o "$out"
}
seal c1.json 5 interactive
seal c1s.json 6 synthetic --wrap
expect 0 "seal a sparse 2 KiB sector (c1sp.json)" "$zkp" porep seal --sparse --sector-size 2KiB \
	--random 8 --prover-id "$prover" --sector-id 8 --ticket "$ticket" --seed "$seed" -o c1sp.json
check "the sparse sealer says its C1 is no seal" "$(said)" has 'a DEVELOPMENT C1, not a seal' out.txt
expect 2 "--sparse refuses a synthetic proof version" "$zkp" porep seal --sparse \
	--sector-size 2KiB --random 8 --prover-id "$prover" --sector-id 8 --ticket "$ticket" \
	--seed "$seed" --mode synthetic -o x.json
check "the refusal says why" "$(said)" grep -q 'interactive proof versions only' err.txt

# flip KEY NTH IN OUT: OUT is IN with the lowest bit flipped in the first
# number after the NTH (0-based) occurrence of KEY (its last digit d becomes
# d xor 1, so a byte stays a byte)
flip() {
	perl -e 'my ($k, $n, $in, $out) = @ARGV;
		open(my $f, "<", $in) or die; local $/; my $s = <$f>; my $p = -1;
		for (0 .. $n) { $p = index($s, $k, $p + 1); die "no $k #$n\n" if $p < 0 }
		pos($s) = $p + length($k); $s =~ /\G[^0-9]*[0-9]*/g; my $d = pos($s) - 1;
		substr($s, $d, 1) = substr($s, $d, 1) ^ "\x01";
		open(my $o, ">", $out) or die; print $o $s' "$@"
}
flip '"rows":[[' 0 c1.json bad-label.json
flip '"hashes":[[' 3 c1.json bad-path.json
flip '"root":[' 1 c1.json bad-root.json

# --- zkp porep check: C1s against the circuit's rows, no key ------------------

pce=$keydir/porep-2k.pce
for c in c1.json c1sp.json; do
	expect 0 "zkp porep check passes $c against the .pce" "$zkp" porep check --c1 "$c" \
		--pce "$pce"
	check "it counts the circuit's rows ($c, .pce)" "$(said)" \
		grep -q 'partition 0 *passed: 2687921 rows satisfied' out.txt
	expect 0 "zkp porep check passes $c against the native circuit" "$zkp" porep check \
		--c1 "$c" --sector-size 2KiB --threads 2
	check "it counts the same rows ($c, streamed)" "$(said)" \
		grep -q 'partition 0 *passed: 2687921 rows satisfied (streamed)' out.txt
done
flip '"hashes":[[' 3 c1sp.json bad-sparse-path.json
expect 1 "a sparse C1 with a flipped path sibling fails the check against the .pce" "$zkp" \
	porep check --c1 bad-sparse-path.json --pce "$pce"
row_pce=$(sed -n 's/.*FAILED: row \([0-9]*\) of 2687921.*/\1/p' out.txt)
check "the failure names its first failing row (.pce)" "$(said)" test -n "$row_pce"
expect 1 "it fails the native check too" "$zkp" porep check --c1 bad-sparse-path.json \
	--sector-size 2KiB
row_native=$(sed -n 's/.*FAILED: row \([0-9]*\) of 2687921.*/\1/p' out.txt)
check "both name the same row ($row_pce)" "$(said)" test "$row_native" = "$row_pce"
check "stderr gives the row's A.w, B.w and C.w" "$(said)" grep -q "row $row_pce .*A.w = 0x" err.txt
expect 1 "zkp porep check refuses a --sector-size other than the C1's" "$zkp" porep check \
	--c1 c1sp.json --sector-size 8MiB
expect 2 "zkp porep check refuses a partition the C1 does not have" "$zkp" porep check \
	--c1 c1sp.json --sector-size 2KiB --partition 1

cat >zkpd.ini <<EOF
[server]
listen = unix:$sock
witness_dir = $work
journal_dir = $work/journal

[gpus]
devices = cpu

[circuit.porep-2k]
pce = $keydir/porep-2k.pce
key = $keydir/porep-2k.INSECURE-DEV.params
key_format = bellman
porep_sector_size = 2K
preload = true

# The same files, but not declared a PoRep circuit: it takes witnesses only.
[circuit.plain-2k]
pce = $keydir/porep-2k.pce
key = $keydir/porep-2k.INSECURE-DEV.params
key_format = bellman

# A 2 KiB circuit declared as the 8 MiB one: its load must fail.
[circuit.wrong-size]
pce = $keydir/porep-2k.pce
key = $keydir/porep-2k.INSECURE-DEV.params
key_format = bellman
porep_sector_size = 8M
EOF
printf '[circuit.x]\npce = a.pce\nkey = a.params\nkey_format = bellman\nporep_sector_size = 4K\n' \
	>bad-size.ini
expect 2 "an unpublished porep_sector_size fails --check-config" "$zkpd" --check-config bad-size.ini
check "the message names the line and the option" "$(said)" \
	grep -q 'bad-size.ini:5.*porep_sector_size.*not a published sector size' err.txt

launch_zkpd zkpd.log --config zkpd.ini
ctl=("$zkpctl" --connect "unix:$sock")
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd starts with the PoRep circuit" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
ok "zkpd starts with the PoRep circuit"

# --- proofs ------------------------------------------------------------------

expect 0 "zkpctl porep proves a sparse C1 sent by value, like a sealed one" \
	"${ctl[@]}" porep porep-2k c1sp.json --request-id sector-8 --out c2.bin
check "the C2 proof is one 192-byte partition proof" "$(said)" \
	test "$(stat -c %s c2.bin 2>/dev/null)" = 192
check "zkpctl says how many partitions" "$(said)" has '1 partition proof' out.txt
check "its progress tells no stage time and no partition count of none" \
	"$(progress_consistent err.txt; tr '\n' ' ' <err.txt)" progress_consistent err.txt
# "  spans S s of T s (P %)" for the sector job, whose spans are its queue,
# its C1 check and its partitions' time; "  partition K (job N) done T s:
# SPAN SECONDS ... = S s (P %)" for each partition job.
within5() { awk '{ if (!($2 > 0 && $1 >= 0.95 * $2 && $1 <= 1.05 * $2)) bad = 1; n++ }
		 END { exit bad || n == 0 }'; }
check "the sector job's spans add up to its total within 5 %" "$(grep '^  spans' out.txt)" \
	within5 < <(sed -n 's/^  spans \([0-9.]*\) s of \([0-9.]*\) s .*/\1 \2/p' out.txt)
check "the sector job's own spans: queued, witness, partitions" "$(grep '^  span ' out.txt | tr '\n' ' ')" \
	test "$(grep -Ec '^  span (queued|witness|partitions) ' out.txt)" -eq 3
check "its partition's spans add up to the partition job's total within 5 %" \
	"$(grep '^  partition ' out.txt)" \
	within5 < <(sed -n 's/^  partition 0 (job [0-9]*) done \([0-9.]*\) s:.* = \([0-9.]*\) s (.*/\2 \1/p' out.txt)
check "and each span summed over the partitions" "$(grep partitions out.txt | tr '\n' ' ')" \
	grep -Eq "^  partitions' spans summed: queued [0-9.]+ .* verify [0-9.]+ result [0-9.]+ = [0-9.]+ partition-seconds$" out.txt
expect 0 "zkp porep verify accepts it (replica_id recomputed)" "$zkp" porep verify --vk "$vk" \
	--c1 c1sp.json --proof c2.bin --prover-id "$prover" --sector-id 8
check "zkp porep verify says valid" "$(said)" grep -qx valid out.txt
expect 1 "zkp porep verify refuses it for another sector id" "$zkp" porep verify --vk "$vk" \
	--c1 c1sp.json --proof c2.bin --prover-id "$prover" --sector-id 7

expect 0 "zkpctl porep proves a synthetic, wrapped C1 by path" \
	"${ctl[@]}" porep porep-2k --c1-path "$work/c1s.json" --out c2s.bin
expect 0 "zkp porep verify accepts the synthetic proof" "$zkp" porep verify --vk "$vk" \
	--c1 c1s.json --proof c2s.bin --prover-id "$prover" --sector-id 6
expect 1 "the interactive proof does not pass for the synthetic C1" "$zkp" porep verify \
	--vk "$vk" --c1 c1s.json --proof c2.bin

# --- refusals ----------------------------------------------------------------

# A label no longer hashes from its parents' (the C1's own labels are
# checked when the public inputs are derived); a path sibling passes every
# check but the circuit's (the proof does not verify, the row is named); a
# root differs from the others of its partition (the reader).
for bad in label:ERR_MISMATCH path:ERR_UNSATISFIED root:ERR_MISMATCH; do
	code=${bad#*:}
	bad=${bad%:*}
	rm -f "c2-$bad.bin"
	expect 1 "a C1 with a flipped byte in a $bad fails" \
		"${ctl[@]}" porep porep-2k "bad-$bad.json" --out "c2-$bad.bin"
	check "its error is $code and names the partition ($bad)" "$(said)" \
		grep -q "$code: .*partition 0" err.txt
	check "no proof is written for it ($bad)" "$(said)" test ! -e "c2-$bad.bin"
done
expect 5 "a C1 for a circuit without porep_sector_size is refused" \
	"${ctl[@]}" porep plain-2k c1.json --out x.bin
check "the refusal says it is not a PoRep circuit" "$(said)" grep -q 'not a PoRep circuit' err.txt
expect 5 "a .pce that is not the configured sector size's does not load" \
	"${ctl[@]}" load wrong-size
check "the load error names both circuits" "$(said)" \
	grep -q 'PoRep circuit of 2KiB.*not of 8MiB' err.txt
expect 0 "status after the failed load" "${ctl[@]}" status
check "status shows why the circuit did not load" "$(said)" \
	grep -q 'last load failed: ERR_MISMATCH: .*not of 8MiB' out.txt

# Cancelling a sector job cancels its partition job, and the daemon goes on.
"${ctl[@]}" porep porep-2k c1.json --request-id to-cancel --out cancelled.bin \
	>cancel.out 2>cancel.err &
porep_client=$!
pids+=("$porep_client")
sector=
for _ in $(seq 100); do
	"${ctl[@]}" --json status >status.json 2>/dev/null || true
	sector=$(grep -o '"job_id":[0-9]*,[^{}]*"request_id":"to-cancel"' status.json |
		sed 's/"job_id":\([0-9]*\),.*/\1/' || true)
	[ -n "$sector" ] && grep -q "\"parent_job_id\":$sector" status.json && break
	sleep 0.1
done
check "a running sector job shows its partition job in status" "$(cat status.json | head -c 400)" \
	grep -q "\"parent_job_id\":$sector" status.json
expect 0 "cancel the sector job" "${ctl[@]}" cancel "$sector"
porep_rc=0
wait "$porep_client" || porep_rc=$?
check "the waiting zkpctl porep exits 1 with ERR_CANCELLED" "exit $porep_rc: $(cat cancel.err)" \
	test "$porep_rc" -eq 1 -a ! -e cancelled.bin
check "its error says so" "$(cat cancel.err)" grep -q 'ERR_CANCELLED' cancel.err
for _ in $(seq 300); do
	"${ctl[@]}" --json status >status.json 2>/dev/null || true
	grep -q '"jobs":\[\]' status.json && break
	sleep 0.1
done
check "the partition job stops too" "$(head -c 400 status.json)" grep -q '"jobs":\[\]' status.json

expect 0 "metrics" "${ctl[@]}" metrics
check "metrics count 2 sectors done" "$(said)" has 'zkpd_porep_sectors_total{state="done"} 2' out.txt
check "metrics count 3 sectors failed" "$(said)" \
	has 'zkpd_porep_sectors_total{state="failed"} 3' out.txt
check "metrics count 1 sector cancelled" "$(said)" \
	has 'zkpd_porep_sectors_total{state="cancelled"} 1' out.txt
expect 0 "status" "${ctl[@]}" --json status
check "status gives the circuit's sector size" "$(said)" has '"porep_sector_bytes":2048' out.txt

# --- the journal ---------------------------------------------------------------

stop_zkpd
launch_zkpd zkpd2.log --config zkpd.ini
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd restarts" "log: $(tail -5 zkpd2.log | tr '\n' ' ')"
	exit 1
fi
expect 0 "after a restart, await --request-id finds the sector job's result" \
	"${ctl[@]}" await --request-id sector-8 --out again.bin
check "it is the same C2 proof" "$(said)" cmp -s again.bin c2.bin
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
