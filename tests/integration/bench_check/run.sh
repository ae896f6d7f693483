#!/usr/bin/env bash
# The result checkers of `zkpd-bench check` (bench/check_msm.h,
# bench/check_ntt.h) on the CPU backend at small sizes, both ways: every
# MSM (G1 and G2, every kind of scalars) and every NTT spot must pass on a
# correct backend, and must fail when the result is wrong: a scalar or an
# input changed after the operation (--perturb) fails every check, and the
# corrupting backend (each G1 MSM off by the generator) fails every MSM.
# The seed is fresh each run and printed; ZKPD_TEST_SEED replays one.
# Usage: run.sh ZKPD_BENCH
set -u
bench=$1
seed=${ZKPD_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (ZKPD_TEST_SEED=$seed replays this run)"
fails=0

# expect RC CHECKS FAILED -- args: exit code, and the summary's counts
expect() {
	local rc=$1 checks=$2 bad=$3
	shift 4
	local out got
	out=$("$bench" check "$@" --seed "$seed" --threads 2 2>&1)
	got=$?
	local sum
	sum=$(printf '%s\n' "$out" | grep '"check":"summary"')
	if [ "$got" -ne "$rc" ] || ! printf '%s' "$sum" | grep -q "\"checks\":$checks,\"failed\":$bad,\"error\":false"; then
		echo "FAIL: check $* exited $got (want $rc, $checks checks, $bad failed):"
		printf '%s\n' "$out" | tail -n 5
		fails=$((fails + 1))
	else
		echo "ok: check $* ($sum)"
	fi
}

# Without --threads a subcommand runs on every online CPU; --threads still
# sets the count.
cpus=$(getconf _NPROCESSORS_ONLN)
for args in "ntt --log2 8 --runs 1" "msm --log2 8 --runs 1"; do
	# shellcheck disable=SC2086 # the words are the arguments
	def=$("$bench" $args | grep -o '"threads": *[0-9]*' | grep -o '[0-9]*$')
	# shellcheck disable=SC2086
	one=$("$bench" $args --threads 1 | grep -o '"threads": *[0-9]*' | grep -o '[0-9]*$')
	if [ "$def" = "$cpus" ] && [ "$one" = 1 ]; then
		echo "ok: $args runs on $def threads by default, 1 with --threads 1"
	else
		echo "FAIL: $args: ${def:-?} threads by default (want $cpus), ${one:-?} with --threads 1"
		fails=$((fails + 1))
	fi
done

# 6 kinds x 10 sizes; 6 kinds x 7 sizes on G2
expect 0 60 0 -- msm --backend cpu --log2 1..10 --scalars all
expect 0 42 0 -- msm --backend cpu --group g2 --log2 1..7 --scalars all
expect 0 6 0 -- msm --backend cpu --log2 12 --scalars all --runs 2
# the widest windows a caller may force (ZKP_MSM_MAX_WINDOW; 23 is refused below)
expect 0 4 0 -- msm --backend cpu --log2 11..12 --scalars random --window 21,22
expect 1 60 60 -- msm --backend cpu --log2 1..10 --scalars all --perturb
expect 1 12 12 -- msm --backend cpu --group g2 --log2 5..6 --scalars all --perturb
expect 1 16 16 -- msm --backend corrupt --log2 1..8 --scalars random,01
# per size: the domain and 4 transforms
expect 0 60 0 -- ntt --backend cpu --log2 1..12
expect 0 30 0 -- ntt --backend cpu --log2 3..8 --roots snarkjs --spots 5
expect 1 50 40 -- ntt --backend cpu --log2 1..10 --perturb
expect 1 10 8 -- ntt --backend cpu --log2 5..6 --roots snarkjs --perturb
# arguments
for bad in "msm --log2 0" "msm --log2 9..3" "msm --scalars bogus" "ntt --spots 65" \
	"msm --runs 0" "ntt --group g1" "bogus" "msm --backend nope" "msm --window 23"; do
	# shellcheck disable=SC2086
	"$bench" check $bad >/dev/null 2>&1
	rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: check $bad exited $rc (want 2)"
		fails=$((fails + 1))
	fi
done
exit $((fails > 0))
