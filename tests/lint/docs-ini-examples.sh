#!/usr/bin/env bash
# Every ```ini block of README.md and docs/*.md is a configuration an
# operator may copy: each must pass `zkpd --check-config`.
#
# The examples name the operator's files (/var/lib/zkpd/porep-32g.pce,
# /etc/zkpd/tls/server.pem, /run/zkpd/zkpd.sock), which this machine does not
# have. The lint gives each block a sandbox directory and stands in for
# them there, leaving the example's text as written: every absolute path
# (a value starting with /, or unix:/...) is moved under the sandbox, and
# the files the block names (pce, key, cert, client_ca, token_file,
# relative or absolute) are created there as empty files; directories named
# by *_dir options are created. What depends on the host is taken: a GPU
# list (gpus.devices = 0,1) on a machine without those GPUs, a
# server.socket_owner or socket_group (zkpd) that this machine lacks.
# Indented blocks (in a list item) count too. Anything else --check-
# config says (an unknown key, a bad value, an inline comment, which
# libinih does not strip) fails the lint, naming the file and line of the
# block.
# Usage: docs-ini-examples.sh ZKPD SOURCE_DIR WORK_DIR
set -euo pipefail
zkpd=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
# Unix socket paths are limited to 107 bytes: sandboxes live under /tmp.
top=$(mktemp -d /tmp/zkpd-ini.XXXXXX)
trap 'rm -rf "$top"' EXIT

pass=0
fail=0
blocks=0

# The blocks: "FILE LINE" per block, its text in $work/N.ini.
cd "$src"
for md in README.md docs/*.md; do
	awk -v md="$md" -v out="$work" -v list="$work/list" '
		/^[ \t]*```ini[ \t]*$/ {
			inb = 1; indent = index($0, "`") - 1
			name = md "." NR ".ini"; gsub("/", "_", name); name = out "/" name
			printf "%s %d %s\n", md, NR + 1, name >> list; printf "" > name; next }
		inb && /^[ \t]*```/ { inb = 0; close(name); next }
		inb { print substr($0, indent + 1) > name }' "$md"
done
[ -s "$work/list" ] || { echo "FAIL: no ini block found in README.md or docs/*.md"; exit 1; }

# is_file_key KEY: an option whose value names a file the daemon reads
is_file_key() { case $1 in pce | key | cert | client_ca | token_file) return 0 ;; esac; return 1; }

while read -r md line ini; do
	blocks=$((blocks + 1))
	box=$top/$blocks
	mkdir -p "$box/run" "$box/var/lib" "$box/etc"
	# Section headers tell tls.key (a file) from [circuit.x] key (a file too).
	out=$box/example.ini
	: >"$out"
	while IFS= read -r l || [ -n "$l" ]; do
		if [[ $l =~ ^[[:space:]]*([A-Za-z_]+)[[:space:]]*=[[:space:]]*(.*)$ ]]; then
			k=${BASH_REMATCH[1]}
			v=${BASH_REMATCH[2]}
			nv=$(printf '%s' "$v" | sed -e "s#unix:/#unix:$box/#g" -e "s#^/#$box/#")
			if is_file_key "$k"; then
				f=$nv
				[[ $f == /* ]] || f=$box/$f
				mkdir -p "$(dirname "$f")"
				[ -e "$f" ] || : >"$f"
			elif [[ $k == *_dir ]]; then
				mkdir -p "$nv"
			fi
			printf '%s = %s\n' "$k" "$nv" >>"$out"
		else
			printf '%s\n' "$l" >>"$out"
		fi
	done <"$ini"
	rc=0
	"$zkpd" --check-config "$out" >"$box/out.txt" 2>"$box/err.txt" || rc=$?
	# What depends on the host, not on the example: a GPU list on a machine
	# without those GPUs, the socket's user or group (zkpd) not made here.
	host='is not present|server\.socket_(owner|group): no (user|group) '
	if [ "$rc" -ne 0 ] && grep -Eq "$host" "$box/err.txt" &&
		! grep -Ev "$host" "$box/err.txt" | grep -q .; then
		rc=0
	fi
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $md:$line: the ini block there fails zkpd --check-config:"
		sed -e "s#$box/example.ini#$md block at line $line#g" -e "s#$box##g" \
			"$box/err.txt" | sed 's/^/  /'
	fi
done <"$work/list"

echo "docs-ini-examples: $blocks blocks, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
