#!/usr/bin/env bash
# SnapDeals end to end: a 2 KiB sector sealed over Filecoin's graph and
# updated with new data by the development updater (`zkp snap dev-update`:
# PartitionProofs in bincode, as Filecoin hands them to a prover), proved
# offline with `zkp snap prove` and through a real zkpd with `zkpctl snap`
# on the 2 KiB SnapDeals circuit with an INSECURE development key
# (scripts/dev-key snap-2k: made once, then cached), and verified with
# `zkp snap verify`, which derives the public inputs from the commitments
# alone. A vanilla proof with a flipped byte, the wrong commitments or the
# wrong partition count must be refused by name, with no proof written,
# and the daemon must keep serving.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test snap "$1" "$2"

if ! keydir=$("$src/scripts/dev-key" snap-2k "$build"); then
	bad "the 2 KiB SnapDeals development key is made or found in the cache" "scripts/dev-key failed"
	exit 1
fi
ok "the 2 KiB SnapDeals development key is made or found in the cache ($keydir)"
pce=$keydir/snap-2k.pce
key=$keydir/snap-2k.INSECURE-DEV.params
vk=$keydir/snap-2k.INSECURE-DEV.vk

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
expect 0 "zkp snap dev-update seals and updates a 2 KiB sector" "$zkp" snap dev-update \
	--sector-size 2KiB --random 5 --prover-id "$prover" --sector-id 5 --ticket "$ticket" \
	--data-seed 6 -o up
check "it writes one PartitionProof and public.json" "$(ls up)" \
	test -s up/partition-0.bin -a -s up/public.json
field() { sed -n "s/.*\"$1\": \"\([0-9a-f]*\)\".*/\1/p" up/public.json; }
ro=$(field comm_r_old)
dn=$(field comm_d_new)
rn=$(field comm_r_new)
check "public.json holds the three commitments" "$(cat up/public.json)" \
	test ${#ro} -eq 64 -a ${#dn} -eq 64 -a ${#rn} -eq 64
pub=(--sector-size 2KiB --comm-r-old "$ro" --comm-d-new "$dn" --comm-r-new "$rn")

expect 0 "zkp snap prove proves the update" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o proof.bin up/partition-0.bin
check "the proof is 192 bytes" "$(said)" test "$(stat -c %s proof.bin)" -eq 192
expect 0 "zkp snap verify accepts it" "$zkp" snap verify "${pub[@]}" --vk "$vk" --proof proof.bin
check "it says valid" "$(said)" has '^valid' out.txt
expect 1 "another comm_r_new does not verify" "$zkp" snap verify --sector-size 2KiB \
	--comm-r-old "$ro" --comm-d-new "$dn" --comm-r-new "$ro" --vk "$vk" --proof proof.bin
check "it says invalid" "$(said)" has '^invalid' out.txt

# flip OFFSET IN OUT: OUT is IN with the low bit of byte OFFSET flipped
flip() {
	cp "$2" "$3"
	printf "$(printf '\\%03o' $(( $(od -An -tu1 -j "$1" -N1 "$2") ^ 1 )))" |
		dd of="$3" bs=1 seek="$1" conv=notrunc status=none
}
size=$(stat -c %s up/partition-0.bin)
flip 0 up/partition-0.bin bad-comm-c.bin
# comm_c 0-31, the apex leaf count 32, the 8 apex leaves from 40; the last
# 556 bytes are challenge 9's proof_r_new (Single: tag, root, leaf, path)
flip $((40 + 3 * 32 + 4)) up/partition-0.bin bad-apex.bin
flip $((size - 556 + 4 + 32 + 4)) up/partition-0.bin bad-leaf.bin
head -c 1000 up/partition-0.bin >short.bin
rm -f no.bin
expect 1 "a changed comm_c is refused" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o no.bin bad-comm-c.bin
check "the message names comm_c" "$(said)" has 'partition 0: SnapDeals partition 0: Poseidon-2(comm_c, root_r_old)' err.txt
expect 1 "a changed apex leaf is refused" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o no.bin bad-apex.bin
check "the message names the apex row" "$(said)" has 'apex' err.txt
expect 1 "a changed new replica leaf is refused" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o no.bin bad-leaf.bin
check "the message names the challenge and tree" "$(said)" has 'challenge 9: leaf .* in tree R new hashes to' err.txt
expect 1 "a truncated proof is refused" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o no.bin short.bin
check "the message names the byte and value" "$(said)" has 'SnapDeals vanilla proof, byte .*: the input ends' err.txt
expect 1 "the wrong comm_r_old is refused" "$zkp" snap prove --sector-size 2KiB \
	--comm-r-old "$rn" --comm-d-new "$dn" --comm-r-new "$rn" --key "$key" --pce "$pce" \
	-o no.bin up/partition-0.bin
expect 1 "two proofs for one partition are refused" "$zkp" snap prove "${pub[@]}" --key "$key" \
	--pce "$pce" -o no.bin up/partition-0.bin up/partition-0.bin
check "the message gives the partition count" "$(said)" has '2 vanilla proofs; a 2048-byte sector has 1 partition' err.txt
check "no refused job wrote a proof" "$(ls)" test ! -e no.bin

# --- through zkpd ------------------------------------------------------------

cat >zkpd.ini <<EOF
[server]
listen = unix:$sock
journal_dir = $work/journal

[gpus]
devices = cpu

[circuit.snap-2k]
pce = $pce
key = $key
key_format = bellman
snap_sector_size = 2K
preload = true

# The same files declared the 8 MiB SnapDeals circuit: its load must fail.
[circuit.wrong-size]
pce = $pce
key = $key
key_format = bellman
snap_sector_size = 8M
EOF
printf '[circuit.x]\npce = a.pce\nkey = a.params\nkey_format = bellman\nsnap_sector_size = 2K\nporep_sector_size = 2K\n' \
	>both.ini
expect 2 "a circuit both PoRep and SnapDeals fails --check-config" "$zkpd" --check-config both.ini
check "the message says why" "$(said)" grep -q 'more than one of porep_sector_size, snap_sector_size' err.txt
printf '[circuit.x]\npce = a.pce\nkey = a.params\nkey_format = bellman\nsnap_sector_size = 4K\n' >size.ini
expect 2 "an unpublished snap_sector_size fails --check-config" "$zkpd" --check-config size.ini
check "the message names the option" "$(said)" grep -q 'size.ini:5.*snap_sector_size.*not a published sector size' err.txt

launch_zkpd zkpd.log --config zkpd.ini
ctl=("$zkpctl" --connect "unix:$sock")
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd starts with the SnapDeals circuit" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
comms=(--comm-r-old "$ro" --comm-d-new "$dn" --comm-r-new "$rn")
expect 0 "zkpctl snap proves the update through zkpd" "${ctl[@]}" snap snap-2k "${comms[@]}" \
	--request-id update-5 --out zkpd-proof.bin --public-json zkpd-public.json up/partition-0.bin
expect 0 "zkp snap verify accepts zkpd's proof" "$zkp" snap verify "${pub[@]}" --vk "$vk" \
	--proof zkpd-proof.bin
check "the public inputs are the four derived ones" "$(cat zkpd-public.json)" \
	test "$(grep -o '"[0-9]*"' zkpd-public.json | wc -l)" -eq 4
expect 1 "a tampered update is refused by zkpd" "${ctl[@]}" snap snap-2k "${comms[@]}" \
	--out no.bin bad-leaf.bin
check "its error names the challenge and tree" "$(said)" has 'challenge 9: leaf .* in tree R new hashes to' err.txt
expect 1 "an update whose commitments disagree is refused by zkpd" "${ctl[@]}" snap snap-2k \
	--comm-r-old "$rn" --comm-d-new "$dn" --comm-r-new "$rn" --out no.bin up/partition-0.bin
expect 1 "two proofs for a one-partition sector are refused" "${ctl[@]}" snap snap-2k \
	--comm-r-old "$ro" --comm-d-new "$dn" --comm-r-new "$rn" --out no.bin \
	up/partition-0.bin up/partition-0.bin
check "two proofs for one partition are named" "$(said)" has '2 vanilla proofs; a 2048-byte sector has 1 partition' err.txt
expect 5 "a witness sent to a SnapDeals circuit is refused" "${ctl[@]}" prove snap-2k proof.bin
check "the message says what the circuit takes" "$(said)" has 'is a SnapDeals circuit (snap_sector_size): it takes a sector update' err.txt
check "no refused job wrote a proof" "$(ls)" test ! -e no.bin
expect 0 "the daemon keeps serving" "${ctl[@]}" health
expect 0 "metrics" "${ctl[@]}" metrics
check "metrics count 1 update done" "$(said)" has 'zkpd_snap_updates_total{state="done"} 1' out.txt
check "metrics count 3 updates failed" "$(said)" has 'zkpd_snap_updates_total{state="failed"} 3' out.txt
expect 0 "status" "${ctl[@]}" --json status
check "status gives the circuit's sector size" "$(said)" has '"snap_sector_bytes":2048' out.txt
expect 1 "the mis-sized circuit refuses an update" "${ctl[@]}" snap wrong-size "${comms[@]}" \
	--out no.bin up/partition-0.bin
check "it says the .pce is not the configured size's circuit" "$(said)" has 'not of 8MiB SnapDeals' err.txt

# --- the journal -------------------------------------------------------------
stop_zkpd
launch_zkpd zkpd2.log --config zkpd.ini
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd restarts" "log: $(tail -5 zkpd2.log | tr '\n' ' ')"
	exit 1
fi
expect 0 "after a restart, await --request-id finds the update's result" \
	"${ctl[@]}" await --request-id update-5 --out again.bin
check "it is the same proof" "$(said)" cmp -s again.bin zkpd-proof.bin
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
