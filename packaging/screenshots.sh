#!/bin/sh
# Screenshots of the real app under Xvfb, from a fresh root holding
# sandboxes in different states: the main window, the Add dialog and
# Settings.   sh packaging/screenshots.sh BIN OUTDIR
set -eu
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
export LANG=en_US.UTF-8
for tool in Xvfb import xdotool; do
	command -v "$tool" >/dev/null 2>&1 || { echo "screenshots: $tool is missing (make deps installs it)" >&2; exit 1; }
done
command -v bwrap >/dev/null 2>&1 || export SANDBOXDESK_BACKEND=testvm
mkdir -p "$OUT"
ROOT=$(mktemp -d)
n=77
while [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1000x640x24 >/dev/null 2>&1 &
XPID=$!
export DISPLAY=":$n"
APP=""
QUEUED=""
cleanup() {
	set +e
	[ -n "$QUEUED" ] && kill "$QUEUED" 2>/dev/null
	"$BIN" quit --root "$ROOT" >/dev/null 2>&1 || true
	[ -n "$APP" ] && wait "$APP" 2>/dev/null
	kill "$XPID" 2>/dev/null
	rm -rf "$ROOT"
	true
}
trap cleanup EXIT
sleep 1
"$BIN" --root "$ROOT" >"$ROOT.log" 2>&1 &
APP=$!
for _ in $(seq 100); do [ -S "$ROOT/control.sock" ] && break; sleep 0.1; done
sd() { "$BIN" --root "$ROOT" "$@" >/dev/null; }
sd limits --at-once 2
sd create scratch --memory 512MiB
sd stop scratch
sd create agent-42 --memory 2GiB
sd create build --memory 1GiB
"$BIN" --root "$ROOT" create review >/dev/null 2>&1 &   # waits: the host runs 2 at once
QUEUED=$!
sleep 2
win=$(xdotool search --name '^sandboxdesk$' | head -n 1)
xdotool windowmove "$win" 0 0 windowsize "$win" 960 560 windowfocus "$win"
sleep 1
shot() { import -window root -crop 960x560+0+0 +repage "$OUT/$1.png"; echo "wrote $OUT/$1.png"; }
shot main
xdotool key --window "$win" ctrl+n
sleep 1
shot add
xdotool key --window "$win" Escape
sleep 0.5
xdotool key --window "$win" ctrl+comma
sleep 1
shot settings
rm -f "$ROOT.log"
