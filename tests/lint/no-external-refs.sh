#!/bin/sh
# Fails when a tracked file cites a document that is not part of the
# repository (a notes, fixtures or vectors folder, a design or style page
# kept beside a checkout). Everything a comment or a page relies on must be
# in docs/ or tests/vectors/, so that a fresh clone can follow every
# reference.
#
# Usage: tests/lint/no-external-refs.sh [SOURCE_DIR]   (default: the
# repository holding this script). Lists the files with `git ls-files` when
# SOURCE_DIR is a git checkout, else with find. Prints FILE:LINE: TEXT for
# each hit and exits 1 if there is any, 0 otherwise. Binary files are
# skipped.
set -u

dir=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$dir" || exit 2

# The patterns are assembled from pieces so that this script does not match
# itself.
top=shared
set -- -e "$top/notes" -e "$top/fixtures" -e "$top/vectors" \
	-e "$top/DESIGN" -e "$top/STYLE"

list=$(mktemp) || exit 2
hits=$(mktemp) || { rm -f "$list"; exit 2; }
trap 'rm -f "$list" "$hits"' EXIT

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z >"$list"
else
	find . \( -name .git -o -name 'build*' \) -prune -o -type f -print0 >"$list"
fi

# -I: skip binary files; -n: line numbers; -F: fixed strings.
xargs -0 -r grep -I -n -F "$@" -- <"$list" >"$hits" 2>/dev/null

if [ -s "$hits" ]; then
	echo "References to documents outside the repository (cite docs/ instead):" >&2
	sed 's/^/  /' "$hits" >&2
	echo "$(wc -l <"$hits" | tr -d ' ') reference(s) found" >&2
	exit 1
fi
echo "no references to documents outside the repository"
exit 0
