#!/usr/bin/env bash
# Installing as operators do: `cmake --install --prefix /usr/local` into a
# DESTDIR installs exactly the programs, the systemd unit (naming the
# installed zkpd), the example configuration and the documentation; `cpack -G
# DEB` makes zkpd_VERSION_ARCH.deb with the same files under /usr, whose
# Depends the host satisfies; `dpkg -i` installs it into an empty root, where
# the programs run, the example configuration passes --check-config and
# `systemd-analyze verify` accepts the unit.
# Usage: run.sh BUILD_DIR SOURCE_DIR WORK_DIR VERSION
set -u
build=$1
src=$2
work=$3
version=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
finish() {
	echo "install: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

for tool in cpack dpkg dpkg-deb dpkg-shlibdeps systemd-analyze; do
	if ! command -v "$tool" >/dev/null; then
		bad "$tool not found (scripts/setup installs it: cmake, dpkg-dev, systemd)"
	fi
done
[ "$fail" -eq 0 ] || finish

# The files every install holds, relative to the prefix, docs aside.
expected="bin/zkp
bin/zkpctl
bin/zkpd
lib/systemd/system/zkpd.service
share/doc/zkpd/examples/zkpd.conf"
doc_sources=$(cd "$src" && ls README.md docs/*.md docs/*.png)

# check_tree ROOT PREFIX WHAT: the files under ROOT/PREFIX are the expected
# ones plus one copy of each document.
check_tree() {
	local root=$1 prefix=$2 what=$3 d extra missing=""
	extra=$(cd "$root/$prefix" && find . -type f -o -type l | sed 's#^\./##' |
		grep -v '^share/doc/zkpd/[^/]*\.\(md\|png\)$' | sort)
	if [ "$extra" = "$expected" ]; then ok "$what: programs, unit, example"; else
		bad "$what: files besides the docs differ from the expected: $(diff <(echo "$expected") <(echo "$extra") | grep '^[<>]' | tr '\n' ' ')"
	fi
	for d in $doc_sources; do
		[ -f "$root/$prefix/share/doc/zkpd/$(basename "$d")" ] || missing="$missing $d"
	done
	if [ -z "$missing" ]; then ok "$what: every document"; else
		bad "$what: documents missing from share/doc/zkpd:$missing"
	fi
}

# check_unit UNIT BINDIR WHAT: ExecStartPre and ExecStart run BINDIR/zkpd.
check_unit() {
	local unit=$1 bindir=$2 what=$3 bad_lines
	bad_lines=$(grep '^ExecStart' "$unit" | grep -v "^ExecStart\(Pre\)\?=$bindir/zkpd ")
	if [ -z "$bad_lines" ] && [ "$(grep -c "^ExecStart\(Pre\)\?=" "$unit")" -eq 2 ]; then
		ok "$what: the unit starts $bindir/zkpd"
	else
		bad "$what: the unit's Exec lines do not all start $bindir/zkpd: $(grep '^ExecStart' "$unit" | tr '\n' ' ')"
	fi
	if grep -q '@[A-Z_]*@' "$unit"; then
		bad "$what: the unit keeps a placeholder: $(grep '@[A-Z_]*@' "$unit" | head -1)"
	fi
}

# --- cmake --install -------------------------------------------------------

if DESTDIR=$work/destdir cmake --install "$build" --prefix /usr/local >install.log 2>&1; then
	ok "cmake --install --prefix /usr/local"
	check_tree "$work/destdir" usr/local "cmake --install"
	check_unit "$work/destdir/usr/local/lib/systemd/system/zkpd.service" /usr/local/bin \
		"cmake --install"
else
	bad "cmake --install: $(tail -5 install.log | tr '\n' ' ')"
fi

# --- cpack -G DEB ----------------------------------------------------------

arch=$(dpkg --print-architecture)
deb=$work/pkg/zkpd_${version}_$arch.deb
if cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1 &&
	[ -f "$deb" ]; then
	ok "cpack -G DEB makes $(basename "$deb") ($(stat -c %s "$deb") bytes)"
else
	bad "cpack made no $deb: $(tail -5 cpack.log | tr '\n' ' ')"
	finish
fi

dpkg-deb -f "$deb" Package Version Architecture Maintainer Depends >control.txt
cat control.txt
for field in "Package: zkpd" "Version: $version" "Architecture: $arch"; do
	grep -qx "$field" control.txt && ok "control: $field" ||
		bad "control: no '$field' in $(tr '\n' ' ' <control.txt)"
done
depends=$(dpkg-deb -f "$deb" Depends)
# dpkg-shlibdeps read these from the programs' libraries; none may be CUDA's,
# which is linked in statically.
for lib in libc6 libuv1 libprotobuf-c1 libjemalloc2 libssl3 libinih1 libmicrohttpd12 libgrpc29; do
	if echo "$depends" | grep -q "\(^\|, \)$lib\( \|,\|$\)"; then ok "Depends names $lib"; else
		bad "Depends lacks $lib: '$depends'"
	fi
done
if echo "$depends" | grep -qi 'cuda\|nvidia'; then
	bad "Depends names a CUDA package, a host without the toolkit cannot install it: $depends"
else
	ok "Depends names no CUDA package"
fi
# Each dependency (or one of its alternatives) is installed on this host at
# a version that satisfies it: the package installs where it was built.
IFS=',' read -ra groups <<<"$depends"
for group in "${groups[@]}"; do
	found=""
	group=${group# }
	IFS='|' read -ra alts <<<"$group"
	for alt in "${alts[@]}"; do
		read -r name op ver <<<"$(echo "$alt" | tr -d '()')"
		have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null |
			sed -n 's/^install ok installed //p')
		[ -n "$have" ] || continue
		if [ -z "$op" ] || dpkg --compare-versions "$have" "$op" "$ver"; then
			found="$name $have"
			break
		fi
	done
	[ -n "$found" ] && ok "dependency $group: installed ($found)" ||
		bad "dependency $group: not satisfied by this host's packages"
done

dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | sed 's#^\./usr/##' | sort >deb-files.txt
(cd "$work/destdir/usr/local" && find . -type f | sed 's#^\./##' | sort) >install-files.txt
if cmp -s deb-files.txt install-files.txt; then ok "the .deb holds the files cmake --install installs"; else
	bad "the .deb's files differ from cmake --install's: $(diff install-files.txt deb-files.txt | grep '^[<>]' | tr '\n' ' ')"
fi

# --- dpkg -i into an empty root ---------------------------------------------
# The root has no other package, so dependencies are forced (they were
# checked against this host above) and the programs run on the host's
# libraries.

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
if dpkg --root="$root" --force-not-root --force-script-chrootless --force-depends \
	--log=/dev/null -i "$deb" >dpkg.log 2>&1 &&
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}' zkpd | grep -q 'install ok installed'; then
	ok "dpkg -i into an empty root"
else
	bad "dpkg -i into $root: $(tail -5 dpkg.log | tr '\n' ' ')"
	finish
fi
check_tree "$root" usr "dpkg -i"
check_unit "$root/usr/lib/systemd/system/zkpd.service" /usr/bin "dpkg -i"
scripts=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t | sed 's#^\./##' | grep -vx 'control\|md5sums\|')
if [ -z "$scripts" ]; then
	ok "the package has no maintainer scripts (installing it enables and starts nothing)"
else
	bad "the package's control archive holds more than control and md5sums: $scripts"
fi

for prog in zkpd zkpctl zkp; do
	out=$("$root/usr/bin/$prog" --version 2>&1)
	[ "$out" = "$prog $version" ] && ok "installed $prog --version: $out" ||
		bad "installed $prog --version printed '$out', wanted '$prog $version'"
done
if "$root/usr/bin/zkpd" --check-config "$root/usr/share/doc/zkpd/examples/zkpd.conf" >check.log 2>&1; then
	ok "the example configuration passes zkpd --check-config"
else
	bad "the example configuration fails zkpd --check-config: $(cat check.log)"
fi

# systemd-analyze verify --root resolves the unit's dependencies and its
# ExecStart inside the root: give it the host's targets, which the package
# does not ship. It warns on stderr and still exits 0 for a bad setting, so
# any output fails too.
targets=""
for d in /usr/lib/systemd/system /lib/systemd/system; do
	[ -f "$d/sysinit.target" ] && targets=$d && break
done
if [ -z "$targets" ]; then
	bad "no sysinit.target in /usr/lib/systemd/system or /lib/systemd/system (the systemd package)"
else
	mkdir -p "$root/etc/systemd/system"
	cp "$targets"/*.target "$root/etc/systemd/system/"
	if systemd-analyze verify --root="$root" zkpd.service >verify.log 2>&1 && [ ! -s verify.log ]; then
		ok "systemd-analyze verify accepts the installed unit"
	else
		bad "systemd-analyze verify --root=$root zkpd.service: $(tr '\n' ' ' <verify.log)"
	fi
fi

finish
