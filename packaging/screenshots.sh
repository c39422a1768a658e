#!/bin/sh
# Screenshots of the real app under Xvfb, with a window manager and, where
# installed, a StatusNotifier tray host, from a fresh root holding
# sandboxes in different states (one with a long name, one queued): the
# main window, the Add dialog, Settings, an error dialog and the tray's
# menu.   sh packaging/screenshots.sh BIN OUTDIR
set -eu
. "$(cd "$(dirname "$0")" && pwd)/xvfb.sh"
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
export LANG=en_US.UTF-8
for tool in Xvfb import xdotool dbus-launch openbox; do
	command -v "$tool" >/dev/null 2>&1 || { echo "screenshots: $tool is missing (make deps installs it)" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(mktemp -d)
command -v bwrap >/dev/null 2>&1 || export SANDBOXDESK_BACKEND=testvm
# the app's PATH holds every program but the terminals it looks for, so
# the error shown is the same on every machine: no terminal for a shell
mkdir "$ROOT.bin"
IFS_WAS=$IFS
IFS=:
for dir in $PATH; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*; do
		name=${f##*/}
		case "$name" in x-terminal-emulator | xterm) continue ;; esac
		[ -x "$f" ] && [ ! -e "$ROOT.bin/$name" ] && ln -s "$f" "$ROOT.bin/$name"
	done
done
IFS=$IFS_WAS
# run from there, so the command the error dialog offers names no folder
# of the machine that took the screenshots
rm -f "$ROOT.bin/sandboxdesk"
cp "$BIN" "$ROOT.bin/sandboxdesk"
# the app, the controller program and the agent ship beside the command
# line, which finds them there
for sibling in sandboxdesk-serve sandboxdesk-app sandboxdesk-agent; do
	rm -f "$ROOT.bin/$sibling"
	cp "$(dirname "$BIN")/$sibling" "$ROOT.bin/$sibling"
done
start_xvfb 1000x640x24
export DISPLAY="$XDISPLAY"
APP="" QUEUED="" WM="" TRAY=""
cleanup() {
	set +e
	[ -n "$QUEUED" ] && kill "$QUEUED" 2>/dev/null
	"$BIN" quit --root "$ROOT" >/dev/null 2>&1 || true
	[ -n "$APP" ] && wait "$APP" 2>/dev/null
	for p in $TRAY $WM ${DBUS_SESSION_BUS_PID:-}; do kill "$p" 2>/dev/null; done
	kill "$XPID" 2>/dev/null
	rm -rf "$ROOT" "$ROOT.bin" "$ROOT.log"
	true
}
trap cleanup EXIT
sleep 1
eval "$(dbus-launch --sh-syntax)"
export DBUS_SESSION_BUS_ADDRESS
openbox >/dev/null 2>&1 &
WM=$!
if command -v gtk-sni-tray-standalone >/dev/null 2>&1; then
	gtk-sni-tray-standalone --watcher --bottom >/dev/null 2>&1 &
	TRAY=$!
	# the app looks for a tray host once, at start: wait until one is there
	for _ in $(seq 200); do
		dbus-send --session --print-reply --dest=org.kde.StatusNotifierWatcher /StatusNotifierWatcher \
			org.freedesktop.DBus.Properties.Get string:org.kde.StatusNotifierWatcher \
			string:IsStatusNotifierHostRegistered 2>/dev/null | grep -q "boolean true" && break
		sleep 0.1
	done
else
	echo "screenshots: gtk-sni-tray-standalone is missing (make deps installs it); no tray shot" >&2
fi
PATH="$ROOT.bin" "$ROOT.bin/sandboxdesk" --root "$ROOT" >"$ROOT.log" 2>&1 &
APP=$!
for _ in $(seq 100); do [ -S "$ROOT/control.sock" ] && break; sleep 0.1; done
sd() { "$BIN" --root "$ROOT" "$@" >/dev/null; }
sd limits --at-once 3
sd create scratch --memory 1GiB
sd stop scratch
sd create agent-42 --memory 2GiB
sd create refactor-the-billing-service-and-its-tests-agent-from-monday-01 --memory 1GiB
sd create build --memory 1GiB
"$BIN" --root "$ROOT" create review >/dev/null 2>&1 & # waits: the host runs 3 at once
QUEUED=$!
sleep 2
win=$(xdotool search --name '^sandboxdesk$' | head -n 1)
xdotool windowmove "$win" 0 0 windowsize "$win" 900 540 windowactivate --sync "$win"
sleep 1
# small PNGs: the screens are flat colours, 64 of them are plenty
shot() { import -window "${2:-$win}" -colors 64 "PNG8:$OUT/$1.png"; echo "wrote $OUT/$1.png"; }
shot main
xdotool key --window "$win" ctrl+n
sleep 1
shot add
xdotool key --window "$win" Escape
sleep 0.5
xdotool key --window "$win" ctrl+comma
sleep 1
shot settings
xdotool key --window "$win" Escape
sleep 0.5
# select agent-42 (the second row) and press Return: a shell, but no terminal
xdotool mousemove --window "$win" 100 206 click 1
sleep 0.5
xdotool key --window "$win" Return
sleep 1
shot error
xdotool key --window "$win" Escape
sleep 0.5
if [ -n "$TRAY" ]; then
	# the tray host's bar is the bottom 30 pixels; the icon is its first
	xdotool mousemove 14 625 click 1
	sleep 1
	shot tray root
	xdotool key Escape
fi
