#!/bin/sh
# Checks the Linux packages on this machine, as root, for real:
#   the .deb: dpkg -i; sandboxdesk on PATH answers --version,
#     capacity --json, and list from the controller it starts; the menu
#     entry and the AppStream metadata validate; the app started from
#     the entry's Exec line opens its window under Xvfb (a screenshot is
#     written); dpkg -r then --purge leave no file of it and no file that
#     was not there before;
#   the tarball: install.sh --prefix into a temp folder, the same checks
#     of the command line and the entry, then its uninstall.sh leaves the
#     folder as it was.
#   and first, that apt upgrades from each build's .deb to the next.
#   sh packaging/linux/check.sh DEB TARBALL SCREENSHOT VERSION
set -eu
. "$(cd "$(dirname "$0")" && pwd)/../xvfb.sh"
DEB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TARBALL=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
SHOT=$3 VERSION=$4
ID=dev.sandboxdesk.app
sh "$(dirname "$0")/debversion_check.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "package-linux-check: skipped: installing a .deb needs root" >&2
	exit 0
fi
for tool in dpkg desktop-file-validate appstreamcli Xvfb xdotool import; do
	command -v "$tool" >/dev/null 2>&1 || { echo "package-linux-check: $tool is missing (make deps installs it)" >&2; exit 1; }
done
WORK=$(mktemp -d)
XPID="" APP=""
cleanup() {
	set +e
	[ -n "$APP" ] && kill "$APP" 2>/dev/null && wait "$APP" 2>/dev/null
	[ -n "$XPID" ] && kill "$XPID" 2>/dev/null
	rm -rf "$WORK"
	true
}
trap cleanup EXIT
fail() { echo "package-linux-check: FAIL: $*" >&2; exit 1; }
say() { echo "package-linux-check: $*"; }

# what a package may leave in place: caches that the desktop's triggers
# rebuild, dpkg's own records
files() {
	find /usr /etc /opt -xdev \( -path /etc/ld.so.cache -o -name icon-theme.cache -o -name mimeinfo.cache -o -name '*.pyc' \) -prune -o -print 2>/dev/null | sort
}

# checks the command line, the menu entry and its metadata of an install
# whose folders are PREFIX/{bin,share}
check_install() {
	prefix=$1 sd=$2
	[ "$("$sd" --version)" = "sandboxdesk $VERSION" ] || fail "$sd --version says $("$sd" --version), want sandboxdesk $VERSION"
	HOME="$WORK/home" "$sd" capacity --json >"$WORK/capacity.json" || fail "$sd capacity --json failed"
	grep -q '"totalMemoryBytes"' "$WORK/capacity.json" || fail "capacity --json printed no host memory: $(head -c 300 "$WORK/capacity.json")"
	# a command with no controller running starts the controller program
	# installed beside the command line
	HOME="$WORK/home" "$sd" --root "$WORK/root" list >"$WORK/list.log" 2>&1 || fail "$sd list, starting a controller: $(tail -3 "$WORK/list.log") $(tail -3 "$WORK/root/serve.log" 2>/dev/null)"
	HOME="$WORK/home" "$sd" --root "$WORK/root" quit >/dev/null 2>&1 || fail "$sd quit failed"
	rm -rf "$WORK/root"
	entry="$prefix/share/applications/$ID.desktop"
	[ -f "$entry" ] || fail "no menu entry $entry"
	out=$(desktop-file-validate "$entry" 2>&1) && [ -z "$out" ] || fail "desktop-file-validate $entry: $out"
	appstreamcli validate --no-net "$prefix/share/metainfo/$ID.metainfo.xml" >"$WORK/as.log" 2>&1 || fail "appstreamcli validate: $(cat "$WORK/as.log")"
	for s in 16x16 48x48 256x256 512x512 scalable; do
		ls "$prefix/share/icons/hicolor/$s/apps/sandboxdesk."* >/dev/null 2>&1 || fail "no $s icon in the hicolor theme under $prefix"
	done
	say "$sd: --version, capacity --json, list (its controller started), the menu entry, the metadata and the icons check out"
}

mkdir -p "$WORK/home"
dpkg-query -W sandboxdesk >/dev/null 2>&1 && dpkg --purge sandboxdesk >/dev/null
files >"$WORK/before"
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1 || fail "dpkg -i $DEB: $(tail -5 "$WORK/dpkg.log")"
[ "$(command -v sandboxdesk)" = /usr/bin/sandboxdesk ] || fail "sandboxdesk on PATH is $(command -v sandboxdesk), want /usr/bin/sandboxdesk"
check_install /usr sandboxdesk

# the app from the menu entry's Exec line (field codes dropped), on a
# display of its own, with a fresh home so its root is new
exec_line=$(sed -n 's/^Exec=//p' "/usr/share/applications/$ID.desktop" | sed 's/ *%[a-zA-Z]//g')
start_xvfb 1000x640x24
mkdir -p "$WORK/run"
chmod 700 "$WORK/run"
(cd "$WORK/home" && HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/run" DISPLAY="$XDISPLAY" exec sh -c "exec $exec_line") >"$WORK/app.log" 2>&1 &
APP=$!
win=""
for _ in $(seq 150); do
	win=$(DISPLAY="$XDISPLAY" xdotool search --onlyvisible --name '^sandboxdesk$' 2>/dev/null | head -1) && [ -n "$win" ] && break
	kill -0 "$APP" 2>/dev/null || fail "the app from the entry's Exec=$exec_line ended: $(tail -5 "$WORK/app.log")"
	sleep 0.2
done
[ -n "$win" ] || fail "no window named sandboxdesk appeared from Exec=$exec_line: $(tail -5 "$WORK/app.log")"
sleep 2 # the first frames
mkdir -p "$(dirname "$SHOT")"
DISPLAY="$XDISPLAY" import -window "$win" -strip "$SHOT"
say "the app started from Exec=$exec_line drew its window: $SHOT"
HOME="$WORK/home" sandboxdesk quit >/dev/null 2>&1 || kill "$APP"
wait "$APP" 2>/dev/null || true
APP=""

dpkg -r sandboxdesk >"$WORK/dpkg.log" 2>&1 || fail "dpkg -r: $(tail -5 "$WORK/dpkg.log")"
[ ! -e /usr/bin/sandboxdesk ] && [ ! -e /usr/lib/sandboxdesk ] || fail "dpkg -r left the binaries"
dpkg --purge sandboxdesk >"$WORK/dpkg.log" 2>&1 || fail "dpkg --purge: $(tail -5 "$WORK/dpkg.log")"
files >"$WORK/after"
if ! cmp -s "$WORK/before" "$WORK/after"; then
	fail "after dpkg --purge the files differ from before dpkg -i: $(diff "$WORK/before" "$WORK/after" | head -20)"
fi
say "dpkg -r and --purge left no file behind"

# the tarball, into a prefix that already holds a file of someone else's
# with a space and a letter beyond ASCII, as in a user's "My Apps"
prefix="$WORK/my äpps"
mkdir -p "$prefix/share/applications" "$WORK/x"
echo keep >"$prefix/share/applications/other.desktop"
(cd "$prefix" && find . | sort) >"$WORK/before"
tar -C "$WORK/x" -xJf "$TARBALL"
sh "$WORK"/x/*/install.sh --prefix "$prefix" >"$WORK/install.log" 2>&1 || fail "install.sh --prefix: $(cat "$WORK/install.log")"
check_install "$prefix" "$prefix/bin/sandboxdesk"
grep -qxF "Exec=\"$prefix/bin/sandboxdesk\"" "$prefix/share/applications/$ID.desktop" || fail "the installed entry does not start $prefix/bin/sandboxdesk"
sh "$prefix/lib/sandboxdesk/uninstall.sh" >"$WORK/install.log" 2>&1 || fail "uninstall.sh: $(cat "$WORK/install.log")"
(cd "$prefix" && find . | sort) >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || fail "after uninstall.sh the prefix differs: $(diff "$WORK/before" "$WORK/after" | head -20)"
say "install.sh --prefix and uninstall.sh left the prefix as it was"
