#!/bin/bash
# proto/cuzk/v1/proving.proto keeps the wire contract of Curio's cuzk.v1
# ProvingEngine service: this compares what protoc makes of it (package,
# syntax, services and methods with their types and streaming flags, every
# message and enum with nested ones, every field's name, number, label, type
# and oneof, every enum value's name and number) with the listing made the
# same way from the upstream file, tests/vectors/cuzk-v1-wire.txt. Comments
# and layout are not compared.
#
# Usage: tests/lint/cuzk-proto-check.sh
#          compares the repository's proto with the vector; prints the
#          differences (diff -u, vector first) and exits 1 on any, else
#          prints 'cuzk-proto-check: N facts agree' and exits 0.
#        tests/lint/cuzk-proto-check.sh --write PROTO
#          prints the listing of PROTO, one fact per line, sorted (the vector
#          is this output of the upstream file below a '#' header).
# Needs protoc (Debian: protobuf-compiler) and a python3 that can import
# google.protobuf (Debian: python3-protobuf); exits 1 without either. PROTOC
# and PYTHON3 name other programs; without PYTHON3 the first of python3 on
# PATH and /usr/bin/python3 that has the module is used.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
proto=$root/proto/cuzk/v1/proving.proto
vector=$root/tests/vectors/cuzk-v1-wire.txt

usage() { echo "usage: $0 [--write PROTO]" >&2; exit 2; }
mode=check
case $# in
0) ;;
2) [ "$1" = --write ] || usage; mode=write proto=$2 ;;
*) usage ;;
esac

die() { echo "cuzk-proto-check: $*" >&2; exit 1; }

protoc=${PROTOC:-protoc}
command -v "$protoc" >/dev/null 2>&1 ||
	die "protoc not found ('$protoc'); install Debian's protobuf-compiler"

probe='import google.protobuf.descriptor_pb2'
python=
if [ -n "${PYTHON3:-}" ]; then
	candidates=("$PYTHON3")
else
	candidates=(python3 /usr/bin/python3)
fi
for p in "${candidates[@]}"; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c "$probe" 2>/dev/null; then
		python=$p
		break
	fi
done
[ -n "$python" ] ||
	die "no python3 with google.protobuf (tried: ${candidates[*]}); install Debian's python3-protobuf"

[ -f "$proto" ] || die "no such file: $proto"
[ "$mode" = write ] || [ -f "$vector" ] || die "no such file: $vector"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The listing of the proto given as $1, on stdout.
listing() {
	"$protoc" --proto_path="$(dirname "$1")" --descriptor_set_out="$tmp/set.pb" \
		"$(basename "$1")" || die "protoc failed on $1"
	"$python" - "$tmp/set.pb" <<'EOF'
import sys
from google.protobuf import descriptor_pb2 as d

fds = d.FileDescriptorSet()
with open(sys.argv[1], "rb") as f:
    fds.ParseFromString(f.read())
(fd,) = fds.file
T = d.FieldDescriptorProto
label = lambda v: T.Label.Name(v)[len("LABEL_"):].lower()
ftype = lambda v: T.Type.Name(v)[len("TYPE_"):].lower()
facts = ["syntax " + (fd.syntax or "proto2"), "package " + fd.package]
pkg = fd.package + "." if fd.package else ""

def enum(e, scope):
    name = scope + e.name
    facts.append("enum " + name)
    for v in e.value:
        facts.append("value %s.%s number=%d" % (name, v.name, v.number))

def message(m, scope):
    name = scope + m.name
    facts.append("message " + name)
    for i, o in enumerate(m.oneof_decl):
        facts.append("oneof %s.%s index=%d" % (name, o.name, i))
    for f in m.field:
        line = "field %s.%s number=%d label=%s type=%s type_name=%s" % (
            name, f.name, f.number, label(f.label), ftype(f.type),
            f.type_name or "-")
        if f.HasField("oneof_index"):
            line += " oneof_index=%d" % f.oneof_index
        if f.proto3_optional:
            line += " proto3_optional"
        if f.options.HasField("packed"):
            line += " packed=%s" % str(f.options.packed).lower()
        facts.append(line)
    for n in m.nested_type:
        message(n, name + ".")
    for e in m.enum_type:
        enum(e, name + ".")

for m in fd.message_type:
    message(m, pkg)
for e in fd.enum_type:
    enum(e, pkg)
for s in fd.service:
    facts.append("service " + pkg + s.name)
    for r in s.method:
        facts.append(
            "method %s%s.%s input=%s output=%s client_streaming=%s server_streaming=%s"
            % (pkg, s.name, r.name, r.input_type, r.output_type,
               str(r.client_streaming).lower(), str(r.server_streaming).lower()))
for line in sorted(facts):
    print(line)
EOF
}

if [ "$mode" = write ]; then
	listing "$proto"
	exit 0
fi

listing "$proto" >"$tmp/ours.txt"
grep -v -e '^#' -e '^$' "$vector" >"$tmp/vector.txt" || true
if ! diff -u --label "$vector" --label "$proto" "$tmp/vector.txt" "$tmp/ours.txt"; then
	echo "cuzk-proto-check: $proto differs from the cuzk.v1 wire contract in $vector" >&2
	exit 1
fi
echo "cuzk-proto-check: $(wc -l <"$tmp/ours.txt" | tr -d ' ') facts agree"
