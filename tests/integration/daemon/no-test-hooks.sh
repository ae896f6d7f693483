#!/usr/bin/env bash
# A production zkpd (built without ZKPD_TEST_HOOKS) reads no test variable:
# with ZKPD_TEST_OFFHOST_DEVICES and both ZKPD_INJECT_DEVICE_* set to fail or
# corrupt every call, it still serves on its one CPU device, says nothing of
# test devices or injection, and proves the demo circuit (INSECURE
# development key) with a proof `zkp verify` accepts.
# Usage: no-test-hooks.sh BUILD_DIR WORK_DIR
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

set_paths "$1" "$2"
make_work_dir
demo=$work/demo
vk=$demo/demo.INSECURE-DEV.vk
pick_sock nohooks
trap cleanup EXIT

expect 0 "zkpd --version" "$zkpd" --version
check "it names no test hooks" "$(said)" test "$(grep -c 'test hooks' out.txt)" -eq 0

export ZKPD_TEST_OFFHOST_DEVICES=2 ZKPD_INJECT_DEVICE_FAULT_EVERY=1 \
	ZKPD_INJECT_DEVICE_CORRUPT_EVERY=1
launch_zkpd zkpd.log --listen "unix:$sock" --demo-dir "$demo"
if ! wait_healthy "$pid" 600 "$zkpctl" --connect "unix:$sock"; then
	bad "zkpd starts" "log: $(tail -5 zkpd.log | tr '\n' ' ')"
	exit 1
fi
ok "zkpd starts with the test variables set"
run "$zkpctl" --connect "unix:$sock" --json status
check "it serves on the CPU, not on test devices" "$(said)" \
	test "$(grep -c '"name":"offhost' out.txt)" -eq 0 -a "$(grep -c '"name":"cpu"' out.txt)" -ge 1
expect 0 "prove" "$zkpctl" --connect "unix:$sock" prove demo "$demo/demo.wtns" --out p.bin \
	--public-json pub.json
verify p.bin pub.json "the proof verifies: no fault was injected"
check "the log mentions neither test devices nor injection" "$(grep -iE 'offhost|inject' zkpd.log | head -2)" \
	test "$(grep -ciE 'offhost|inject' zkpd.log)" -eq 0
stop_zkpd

echo "# $pass passed, $failed failed"
[ "$failed" -eq 0 ]
