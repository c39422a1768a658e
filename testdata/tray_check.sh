#!/bin/sh
# The tray as a desktop sees it: under Xvfb, with a session bus, a
# StatusNotifier watcher and a tray host, the app must register its item
# and serve its menu over D-Bus (Quick start, each sandbox with its
# actions, Open sandboxdesk, Quit), then quit without a panic.
#   sh testdata/tray_check.sh BIN
set -eu
. "$(cd "$(dirname "$0")" && pwd)/../packaging/xvfb.sh"
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export LANG=en_US.UTF-8

skip() { echo "tray check skipped: $1 (make deps installs it)"; exit 0; }
command -v Xvfb >/dev/null 2>&1 || skip "Xvfb is missing"
command -v dbus-launch >/dev/null 2>&1 || skip "dbus-launch (dbus-x11) is missing"
command -v dbus-send >/dev/null 2>&1 || skip "dbus-send is missing"
command -v gtk-sni-tray-standalone >/dev/null 2>&1 || skip "gtk-sni-tray-standalone (haskell-gtk-sni-tray-utils) is missing"

ROOT=$(mktemp -d)
LOG=$ROOT.log
XPID="" APP="" HOSTPID="" WATCHPID=""
cleanup() {
	set +e
	[ -n "$APP" ] && kill "$APP" 2>/dev/null && wait "$APP" 2>/dev/null
	for p in $HOSTPID $WATCHPID; do kill "$p" 2>/dev/null; done
	[ -n "${DBUS_SESSION_BUS_PID:-}" ] && kill "$DBUS_SESSION_BUS_PID" 2>/dev/null
	[ -n "$XPID" ] && kill "$XPID" 2>/dev/null
	rm -rf "$ROOT" "$LOG"
	true
}
trap cleanup EXIT
fail() { echo "tray check FAILED: $1" >&2; [ -f "$LOG" ] && sed 's/^/  app: /' "$LOG" >&2; exit 1; }

start_xvfb 800x600x24
export DISPLAY="$XDISPLAY"
eval "$(dbus-launch --sh-syntax)"
export DBUS_SESSION_BUS_ADDRESS
sleep 1

# a watcher (its own program where installed, else the host's built-in
# one) and the host that shows the items
if command -v status-notifier-watcher >/dev/null 2>&1; then
	status-notifier-watcher >/dev/null 2>&1 &
	WATCHPID=$!
	sleep 1
fi
gtk-sni-tray-standalone --watcher --bottom >/dev/null 2>&1 &
HOSTPID=$!

bus() { dbus-send --session --print-reply "$@" 2>/dev/null; }
watcher_prop() {
	bus --dest=org.kde.StatusNotifierWatcher /StatusNotifierWatcher \
		org.freedesktop.DBus.Properties.Get string:org.kde.StatusNotifierWatcher "string:$1"
}
for _ in $(seq 100); do
	watcher_prop IsStatusNotifierHostRegistered | grep -q "boolean true" && break
	sleep 0.1
done
watcher_prop IsStatusNotifierHostRegistered | grep -q "boolean true" || fail "the tray host never registered with the watcher"

SANDBOXDESK_BACKEND=testvm "$BIN" --root "$ROOT" >"$LOG" 2>&1 &
APP=$!
for _ in $(seq 100); do [ -S "$ROOT/control.sock" ] && break; sleep 0.1; done
[ -S "$ROOT/control.sock" ] || fail "the app never opened its socket"
"$BIN" --root "$ROOT" create tray-probe >/dev/null || fail "could not create a sandbox"

item=""
for _ in $(seq 100); do
	item=$(watcher_prop RegisteredStatusNotifierItems | sed -n 's/.*string "\([^"]*\)".*/\1/p' | head -n 1)
	[ -n "$item" ] && break
	sleep 0.1
done
[ -n "$item" ] || fail "no StatusNotifierItem registered with the watcher"
service=${item%%/*}
path=/StatusNotifierItem
case "$item" in */*) path=/${item#*/} ;; esac
menu=$(bus --dest="$service" "$path" org.freedesktop.DBus.Properties.Get \
	string:org.kde.StatusNotifierItem string:Menu | sed -n 's/.*object path "\([^"]*\)".*/\1/p')
[ -n "$menu" ] || fail "the item $item has no menu"

# the menu follows the sandboxes: wait for the row of the one just made,
# as running (the app may still show it starting when create returns)
layout=""
for _ in $(seq 50); do
	layout=$(bus --dest="$service" "$menu" com.canonical.dbusmenu.GetLayout int32:0 int32:-1 array:string:)
	echo "$layout" | grep -qF 'string "tray-probe   ● running"' && break
	sleep 0.2
done
for label in "Quick start (default)" "tray-probe   ● running" "Open shell" "Stop" "Open sandboxdesk" "Quit"; do
	echo "$layout" | grep -qF "string \"$label\"" || fail "the tray menu has no \"$label\""
done
echo "tray: item $item registered, menu $menu holds Quick start, tray-probe (Open shell, Stop), Open sandboxdesk, Quit"

"$BIN" quit --root "$ROOT" >/dev/null 2>&1 || true
code=0
wait "$APP" || code=$?
APP=""
[ "$code" -eq 0 ] || fail "the app exited with status $code"
if grep -qi "panic" "$LOG"; then fail "the app panicked at teardown"; fi
echo "tray: the app quit cleanly"
