#!/bin/sh
# Fails when a program picks its default thread count anywhere but
# zkp_pool_default_threads (include/zkpd/pool.h): a CPU count read
# elsewhere, or a thread count declared with a number for its default, in
# the tools, the benchmarks or the daemon. An explicit --threads or
# synthesis.threads is the user's choice and is not matched.
#
# Usage: tests/lint/default-threads.sh [SOURCE_DIR]   (default: the
# repository holding this script). Prints FILE:LINE: TEXT for each hit and
# exits 1 if there is any, 0 otherwise.
set -u

dir=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$dir" || exit 2

hits=$(mktemp) || exit 2
trap 'rm -f "$hits"' EXIT

# The CPU count, read anywhere but the one function.
grep -rnE '_SC_NPROCESSORS_(ONLN|CONF)|get_nprocs' --include='*.c' --include='*.h' \
	--include='*.cu' --include='*.cpp' src bench cuda include |
	grep -v '^src/base/pool\.c:' | grep -v '^include/zkpd/pool\.h:' >>"$hits"
# A thread count declared with a literal default (long threads = 2, .threads = 1),
# or a pool of a fixed size.
grep -rnE '(\b(int|long|unsigned)\b[^;(]*[ ,]threads|\.threads) = [0-9]|zkp_pool_new\([^,]*, *[0-9]+\)' \
	--include='*.c' src/tools src/daemon bench >>"$hits"

if [ -s "$hits" ]; then
	cat "$hits"
	echo "default-threads: $(wc -l <"$hits" | tr -d ' ') default thread count(s) not from" \
		"zkp_pool_default_threads" >&2
	exit 1
fi
echo "default-threads: every default thread count comes from zkp_pool_default_threads"
