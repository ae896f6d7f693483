#!/usr/bin/env bash
# docs/operations.md, "From the package to a verified PoRep proof", run as
# written: the page's sh block is taken from the page and run with its
# system paths moved under a temporary root, so the test follows the walk
# the operator reads. What a test cannot do stands in for itself:
#   apt install ./zkpd_*.deb      the .deb cpack makes, unpacked into the root
#   sudo CMD                      CMD as this user
#   useradd, install -o/-g        no user zkpd: files stay this user's
#   systemctl enable --now zkpd   the unit's two commands: zkpd --check-config,
#                                 then zkpd --config, in the background, with
#                                 /run/zkpd moved under the temporary directory
# The 2 KiB PoRep key takes minutes to make: the directory is seeded with
# the key scripts/dev-key keeps in its cache (made once for every test that
# needs it), so `zkp dev-key` there builds the circuit and keeps the key,
# as a rerun on a server would. Making keys is tested in integration_zkp_tool.
# Usage: walk.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail

source "$2/tests/integration/daemon/lib.sh"

set_paths "$1" "$3"
src=$2
make_work_dir
trap cleanup EXIT
run_timeout=600

root=$work/root
rundir=$(mktemp -d /tmp/zkpd-walk.XXXXXX)
sockdir=$rundir # removed by cleanup
mkdir -p "$root" "$work/pkg" "$work/home"

# --- the package ------------------------------------------------------------

if cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1 &&
	deb=$(ls "$work"/pkg/zkpd_*.deb 2>/dev/null) && [ -f "$deb" ]; then
	ok "cpack makes $(basename "$deb")"
else
	bad "cpack makes a .deb" "$(tail -3 cpack.log | tr '\n' ' ')"
	exit 1
fi

# --- the key, seeded from the test cache ---------------------------------------

if ! keydir=$("$src/scripts/dev-key" porep-2k "$build" 2>dev-key.log); then
	bad "scripts/dev-key porep-2k" "$(tail -3 dev-key.log | tr '\n' ' ')"
	exit 1
fi
mkdir -p "$root/var/lib/zkpd"
for f in porep-2k.INSECURE-DEV.params porep-2k.INSECURE-DEV.params.zkpc \
	porep-2k.INSECURE-DEV.vk porep-2k.pce.sha256; do
	ln -s "$keydir/$f" "$root/var/lib/zkpd/$f"
done

# --- the walk as the page gives it --------------------------------------------------

awk '/^## From the package to a verified PoRep proof/ { on = 1; next }
     on && /^## / { exit }
     on && /^```sh$/ { inblock = 1; next }
     inblock && /^```$/ { exit }
     inblock { print }' "$src/docs/operations.md" >walk-doc.sh
check "docs/operations.md has the walk's sh block" "no block found" test -s walk-doc.sh
sed -e "s#/var/lib/zkpd#$root/var/lib/zkpd#g" -e "s#/etc/zkpd#$root/etc/zkpd#g" \
	-e "s#/usr/share/doc/zkpd#$root/usr/share/doc/zkpd#g" -e "s#/run/zkpd#$rundir/zkpd#g" \
	walk-doc.sh >walk-run.sh

cat >shims.sh <<EOF
set -euo pipefail
export PATH="$root/usr/bin:\$PATH"
sudo() { [ "\$1" != -E ] || shift; "\$@"; }
apt() { [ "\$1" = install ] && dpkg-deb -x "$work/pkg/\$(basename "\$2")" "$root"; }
useradd() { :; }
install() {
	local args=()
	while [ \$# -gt 0 ]; do
		case \$1 in -o|-g) shift 2 ;; *) args+=("\$1"); shift ;; esac
	done
	command install "\${args[@]}"
}
systemctl() {
	case "\$*" in
	daemon-reload) ;;
	"enable --now zkpd")
		# The unit's RuntimeDirectory=zkpd: /run/zkpd, here under the
		# temporary directory, and the configuration naming it there.
		sed -i "s#/run/zkpd/#$rundir/zkpd/#" "$root/etc/zkpd/zkpd.conf"
		zkpd --check-config "$root/etc/zkpd/zkpd.conf" >&2
		zkpd --config "$root/etc/zkpd/zkpd.conf" >"$work/zkpd.log" 2>&1 &
		echo \$! >"$work/zkpd.pid"
		for _ in \$(seq 600); do
			zkpctl --connect "unix:$rundir/zkpd/zkpd.sock" health >/dev/null 2>&1 && return 0
			kill -0 \$(cat "$work/zkpd.pid") || return 1
			sleep 0.1
		done
		return 1 ;;
	*) echo "systemctl \$*: not in the walk" >&2; return 1 ;;
	esac
}
EOF
cd "$work/pkg"
rc=0
HOME=$work/home bash -c "source '$work/shims.sh'; cd '$work/home'; source '$work/walk-run.sh'" \
	>"$work/out.txt" 2>"$work/err.txt" || rc=$?
cd "$work"
[ ! -s zkpd.pid ] || pid=$(cat zkpd.pid)
check "the walk runs to its end" "$(said); zkpd log: $(tail -3 zkpd.log 2>/dev/null | tr '\n' ' ')" \
	test "$rc" -eq 0
check "the package's programs ran" "no $root/usr/bin/zkpd" test -x "$root/usr/bin/zkpd"
check "zkp dev-key kept the key made for the circuit" "$(said)" \
	has 'porep-2k: the development key in .* was made for this circuit: kept' err.txt
check "the configuration got the circuit's section" "$(tail -8 "$root/etc/zkpd/zkpd.conf" | tr '\n' ' ')" \
	has '^\[circuit.porep-2k\]$' "$root/etc/zkpd/zkpd.conf"
check "--check-config passed" "$(said)" has 'zkpd.conf: ok (1 circuit(s)' out.txt
check "zkpd made its runtime directory" "$(ls -ld "$rundir/zkpd" 2>&1)" test -d "$rundir/zkpd"
check "zkpctl status lists porep-2k" "$(said)" grep -q '^porep-2k ' out.txt
check "zkpctl porep wrote one 192-byte proof" "$(said)" \
	test "$(stat -c %s "$work/home/c2.bin" 2>/dev/null)" = 192
check "zkp porep verify says valid" "$(said)" test "$(tail -1 out.txt)" = valid
stop_zkpd

echo "install_walk: $pass passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
