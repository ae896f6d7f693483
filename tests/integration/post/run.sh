#!/usr/bin/env bash
# WindowPoSt and WinningPoSt end to end through a real zkpd: development
# vanilla proofs of 2 KiB sectors sealed over Filecoin's graph
# (`zkp post dev-vanilla`: bincode FallbackPoStSectorProofs, as Filecoin
# hands them to a prover) proved with `zkpctl post` on the 2 KiB PoSt
# circuits with INSECURE development keys (scripts/dev-key), each proof
# verified with `zkp verify` against its public inputs. Tampered proofs,
# other randomness, a claimed partition the proofs were not made for and a
# proof type of another kind are refused by name and the daemon keeps
# serving. A WinningPoSt submitted behind a queue of SnapDeals partitions
# (about 10 s each) starts first: WinningPoSt defaults to CRITICAL.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"

filecoin_test post "$1" "$2"

dev_keys post-window-2k post-winning-2k snap-2k || exit 1
win=$dir_post_window_2k
winning=$dir_post_winning_2k
snapd=$dir_snap_2k

prover=$(printf '%062d2a' 0)
ticket=$(printf '%02x' $(seq 1 32) | tr -d '\n')
rnd=$(printf '%02x' $(seq 11 42) | tr -d '\n' | sed 's/..$/05/')
other=$(printf '%02x' $(seq 21 52) | tr -d '\n' | sed 's/..$/05/')
dev() { # DIR TYPE IDS [PARTITION]
	expect 0 "zkp post dev-vanilla writes proof type $2 for sectors $3 ($1)" "$zkp" post \
		dev-vanilla --proof-type "$2" --random 3 --prover-id "$prover" --ticket "$ticket" \
		--sector-ids "$3" --randomness "$rnd" --partition "${4:-0}" -o "$1"
}
dev window 5 21,22
dev window1 5 23 1
dev winning 0 24
dev window-v1-2 10 25,26

cat >zkpd.ini <<EOF
[server]
listen = unix:$sock
journal_dir = $work/journal

[gpus]
devices = cpu

[circuit.window-2k]
pce = $win/post-window-2k.pce
key = $win/post-window-2k.INSECURE-DEV.params
key_format = bellman
window_post_sector_size = 2K
preload = true

[circuit.winning-2k]
pce = $winning/post-winning-2k.pce
key = $winning/post-winning-2k.INSECURE-DEV.params
key_format = bellman
winning_post_sector_size = 2K
preload = true

[circuit.snap-2k]
pce = $snapd/snap-2k.pce
key = $snapd/snap-2k.INSECURE-DEV.params
key_format = bellman
snap_sector_size = 2K
preload = true

# The window circuit's files declared the WinningPoSt circuit: its load fails.
[circuit.wrong-kind]
pce = $win/post-window-2k.pce
key = $win/post-window-2k.INSECURE-DEV.params
key_format = bellman
winning_post_sector_size = 2K
EOF
launch_zkpd zkpd.log --config zkpd.ini
ctl=("$zkpctl" --connect "unix:$sock")
if ! wait_healthy "$pid" 300 "${ctl[@]}"; then
	bad "zkpd starts with the PoSt circuits" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi

prove_ok() { # WHAT CIRCUIT TYPE DIR PARTITION FILES...
	local what=$1 circ=$2 type=$3 dir=$4 part=$5
	shift 5
	expect 0 "$what is proved through zkpd" "${ctl[@]}" post "$circ" --proof-type "$type" \
		--randomness "$rnd" --partition "$part" --out "$dir.proof" --public-json \
		"$dir.public.json" "$@"
	expect 0 "$what verifies with zkp verify" "$zkp" verify --vk "$(vk_of "$circ")" \
		--proof "$dir.proof" --public "$dir.public.json"
}
vk_of() { case $1 in window-2k) echo "$win/post-window-2k.INSECURE-DEV.vk" ;;
	*) echo "$winning/post-winning-2k.INSECURE-DEV.vk" ;; esac; }
prove_ok "a 2-sector WindowPoSt partition" window-2k 5 window 0 window/sector-21.bin window/sector-22.bin
check "its public inputs are 2 x (comm_r + 10 leaves)" "$(cat window.public.json)" \
	test "$(grep -o '"[0-9]*"' window.public.json | wc -l)" -eq 22
prove_ok "a 1-sector WindowPoSt partition 1 (padded)" window-2k 5 window1 1 window1/sector-23.bin
prove_ok "a WindowPoSt V1_1 partition" window-2k 10 window-v1-2 0 window-v1-2/sector-25.bin \
	window-v1-2/sector-26.bin
prove_ok "a WinningPoSt" winning-2k 0 winning 0 winning/sector-24.bin
check "its public inputs are comm_r + 66 leaves" "$(cat winning.public.json)" \
	test "$(grep -o '"[0-9]*"' winning.public.json | wc -l)" -eq 67

refused() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	expect 1 "$what is refused" "${ctl[@]}" post "$@" --out no.bin
	check "its error says why" "$(said)" grep -q -- "$pattern" err.txt
}
cp window/sector-22.bin bad.bin
printf '\x01' | dd of=bad.bin bs=1 seek=200 conv=notrunc status=none
refused "a changed sibling" "sector 1" window-2k --proof-type 5 --randomness "$rnd" \
	window/sector-21.bin bad.bin
refused "other randomness" "sector 0" window-2k --proof-type 5 --randomness "$other" \
	window/sector-21.bin window/sector-22.bin
refused "proofs claimed for another partition" "sector 0" window-2k --proof-type 5 \
	--randomness "$rnd" --partition 2 window/sector-21.bin window/sector-22.bin
refused "a WindowPoSt proof type on the WinningPoSt circuit" "StackedDrgWindow2KiBV1" \
	winning-2k --proof-type 5 --randomness "$rnd" winning/sector-24.bin
refused "three sectors in a 2-sector partition" "3 sectors" window-2k --proof-type 5 \
	--randomness "$rnd" window/sector-21.bin window/sector-22.bin window1/sector-23.bin
expect 5 "a witness sent to a PoSt circuit is refused" "${ctl[@]}" prove window-2k window.proof
check "the message says what it takes" "$(said)" has 'is a PoSt circuit: it takes PoSt vanilla proofs' err.txt
refused "the mis-declared circuit" "not of 2KiB WinningPoSt" wrong-kind --proof-type 0 \
	--randomness "$rnd" winning/sector-24.bin
check "no refused job wrote a proof" "$(ls)" test ! -e no.bin
expect 0 "the daemon keeps serving" "${ctl[@]}" health
expect 0 "status" "${ctl[@]}" --json status
check "status gives the PoSt circuits' sector sizes" "$(said)" \
	grep -q '"window_post_sector_bytes":2048.*"winning_post_sector_bytes":2048' out.txt

# --- WinningPoSt jumps the queue ------------------------------------------------
# Three SnapDeals updates (one partition job each, about 10 s) are queued
# first; the WinningPoSt, submitted at the default priority, must end
# before the last of them.
expect 0 "a SnapDeals update for the queue" "$zkp" snap dev-update --sector-size 2KiB \
	--random 5 --prover-id "$prover" --sector-id 5 --ticket "$ticket" --data-seed 6 -o up
f() { sed -n "s/.*\"$1\": \"\([0-9a-f]*\)\".*/\1/p" up/public.json; }
comms=(--comm-r-old "$(f comm_r_old)" --comm-d-new "$(f comm_d_new)" --comm-r-new "$(f comm_r_new)")
snaps=()
for i in 1 2 3; do
	"${ctl[@]}" snap snap-2k "${comms[@]}" --out "snap$i.proof" up/partition-0.bin \
		>"snap$i.log" 2>&1 &
	snaps+=($!)
	sleep 0.3
done
sleep 1
expect 0 "the WinningPoSt is proved behind them" "${ctl[@]}" post winning-2k --proof-type 0 \
	--randomness "$rnd" --out jump.proof winning/sector-24.bin
check "it ran at critical priority" "$(grep winning-2k zkpd.log | tail -2 | tr '\n' ' ')" \
	grep -q 'circuit winning-2k priority critical' zkpd.log
wait "${snaps[@]}" || true
for i in 1 2 3; do
	check "queued update $i was proved too" "$(cat snap$i.log)" test -s "snap$i.proof"
done
jump=$(grep -n 'done: circuit winning-2k' zkpd.log | tail -1 | cut -d: -f1)
last=$(grep -n 'done: circuit snap-2k' zkpd.log | tail -1 | cut -d: -f1)
check "the WinningPoSt ended before the last queued SnapDeals job" \
	"$(grep 'done: circuit' zkpd.log | tail -8 | cut -c1-110 | tr '\n' ' ')" \
	test "${jump:-0}" -gt 0 -a "${jump:-0}" -lt "${last:-0}"
expect 0 "metrics" "${ctl[@]}" metrics
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
