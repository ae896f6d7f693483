#!/bin/sh
# scripts/demo shows what it does while it waits: the build's progress is
# not thrown away (a first build is silent for a minute and a half
# otherwise), and it says it reuses a cached development key rather than
# announcing minutes of key making every time.
# Usage: demo-progress.sh SOURCE_DIR
demo=$1/scripts/demo
fail=0
if grep -n 'cmake --build' "$demo" | grep -Eq '(^|[^2])>/dev/null *$'; then
	echo "FAIL: scripts/demo discards the build's progress: $(grep -n 'cmake --build' "$demo")"
	fail=1
fi
# The minutes of key making are announced only where the key is not cached:
# in the else branch of a test for the cached key file.
awk '/if \[ -s .*INSECURE-DEV\.params/ { cond = 1 }
     cond && /reusing/ { reuse = 1 }
     cond && /^else/ { inelse = 1 }
     /^fi/ { cond = 0; inelse = 0 }
     /echo/ && /[0-9]-[0-9]+ minutes/ && !inelse { print "FAIL: line " NR " announces key making unconditionally: " $0; bad = 1 }
     END { if (!reuse) { print "FAIL: scripts/demo never says it reuses the cached key"; bad = 1 }
           exit bad }' "$demo" || fail=1
[ "$fail" -eq 0 ] && echo "demo-progress: ok"
exit "$fail"
