#!/bin/sh
# The Windows app, seen on Linux: runs the MinGW build under Wine with
# Xvfb, its WSL backend pointed at the fake wsl.exe, creates a sandbox
# through the Windows CLI (over the named pipe) and takes a picture of
# the main window.
#   sh packaging/windows/screenshot.sh APP.exe FAKEWSL.exe OUT.png
set -eu
. "$(cd "$(dirname "$0")" && pwd)/../xvfb.sh"
APP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FAKE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
OUT=$3
WINE=$(command -v wine64 || ls /usr/lib/wine/wine64 2>/dev/null) || { echo "screenshots-windows: wine64 is missing (make deps installs it)" >&2; exit 1; }
for tool in Xvfb import xdotool; do
	command -v "$tool" >/dev/null 2>&1 || { echo "screenshots-windows: $tool is missing (make deps installs it)" >&2; exit 1; }
done
WORK=$(mktemp -d)
export WINEPREFIX=${WINE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wine-go-test}/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
[ -d "$WINEPREFIX" ] || "$WINE" wineboot --init >/dev/null 2>&1
# Wine sees the Linux root as drive Z:
ROOT="Z:$(echo "$WORK/root" | tr / '\\')"
export SANDBOXDESK_WSL="Z:$(echo "$FAKE" | tr / '\\')" FAKEWSL_HOME="Z:$(echo "$WORK/fakewsl" | tr / '\\')"
mkdir -p "$WORK/root/wsl-images" "$WORK/img/etc"
echo 'root:x:0:0:root:/root:/bin/sh' >"$WORK/img/etc/passwd"
tar -C "$WORK/img" -cf "$WORK/root/wsl-images/base.tar" etc
start_xvfb 1000x640x24
export DISPLAY="$XDISPLAY"
PID=""
cleanup() {
	set +e
	"$WINE" "$APP" quit --root "$ROOT" >/dev/null 2>&1
	[ -n "$PID" ] && wait "$PID" 2>/dev/null
	kill "$XPID" 2>/dev/null
	rm -rf "$WORK"
	true
}
trap cleanup EXIT
sleep 1
"$WINE" "$APP" --root "$ROOT" >"$WORK/app.log" 2>&1 &
PID=$!
sd() { "$WINE" "$APP" --root "$ROOT" "$@"; }
for _ in $(seq 300); do sd list >/dev/null 2>&1 && break; sleep 0.2; done
sd create dev
sd create agent-7
sd stop agent-7
sd exec dev -- /bin/true
sd list
win=""
for _ in $(seq 100); do
	win=$(xdotool search --name '^sandboxdesk$' 2>/dev/null | head -n 1) && [ -n "$win" ] && break
	sleep 0.2
done
[ -n "$win" ] || { echo "screenshots-windows: no window appeared" >&2; cat "$WORK/app.log" >&2; exit 1; }
# below the top edge, where Wine would put a title bar of its own
xdotool windowmove "$win" 0 30 windowsize "$win" 960 560 2>/dev/null || true
sleep 3
import -window root -crop 960x560+0+30 +repage -colors 64 "PNG8:$OUT"
echo "wrote $OUT"
