#!/bin/sh
# Checks the Windows installer under Wine, as a user would meet it: a
# silent install (/S) puts the programs, the Start menu entry and the
# uninstaller's registration in place; "Open at login" (/AUTOSTART=1)
# writes the Run value and an install without it leaves none; the app
# started from its Start menu entry draws its window (a picture is
# written) and the installed command line talks to it; with the app quit,
# the command line starts the controller program installed beside it;
# the uninstaller refuses while the app runs, and once it is quit removes
# every file and registry entry the install made.
#   sh packaging/windows/check.sh SETUP.exe FAKEWSL.exe VERSION OUT.png
set -eu
. "$(cd "$(dirname "$0")" && pwd)/../xvfb.sh"
SETUP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FAKE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
VERSION=$3
OUT=$4
WINE=$(command -v wine64 || ls /usr/lib/wine/wine64 2>/dev/null) || { echo "package-windows-check: wine64 is missing (make deps installs it)" >&2; exit 1; }
WINESERVER=$(command -v wineserver || ls /usr/lib/wine/wineserver 2>/dev/null) || { echo "package-windows-check: wineserver is missing (make deps installs it)" >&2; exit 1; }
for tool in Xvfb import xdotool perl; do
	command -v "$tool" >/dev/null 2>&1 || { echo "package-windows-check: $tool is missing (make deps installs it)" >&2; exit 1; }
done
# the prefix the Windows tests run in (make wine-test makes it, with the
# shim Go's programs need under Wine); winemenubuilder off: the Start menu
# entry must not become a Linux desktop entry of the machine's
export WINEPREFIX=${WINE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wine-go-test}/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
[ -d "$WINEPREFIX" ] || "$WINE" wineboot --init >/dev/null 2>&1
WORK=$(mktemp -d)
fail() { echo "package-windows-check: $*" >&2; exit 1; }
win() { printf 'Z:%s\n' "$(printf %s "$1" | tr / '\\')"; }

USERDIR=""
for d in "$WINEPREFIX"/drive_c/users/*; do
	[ "$(basename "$d")" != Public ] && [ -d "$d/AppData" ] && USERDIR=$d
done
[ -n "$USERDIR" ] || fail "no user profile in $WINEPREFIX"
INSTDIR=$USERDIR/AppData/Local/Programs/sandboxdesk
LNK=$USERDIR/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/sandboxdesk.lnk
UNINST='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\sandboxdesk'
RUN='HKCU\Software\Microsoft\Windows\CurrentVersion\Run'

# files is every file of the prefix's C: drive but the temporary ones:
# Wine's, other programs' sharing the prefix, and the copy of itself an
# NSIS uninstaller runs from %TEMP% (it cannot delete the file it runs)
files() {
	(cd "$WINEPREFIX/drive_c" && find . -path ./windows/temp -prune -o -path './users/*/Temp' -prune -o -path './users/*/AppData/Local/Temp' -prune -o -print | sort)
}
# keys is every line of the user's registry that names sandboxdesk
keys() {
	rm -f "$WORK/hkcu.reg"
	"$WINE" reg export HKCU "$(win "$WORK/hkcu.reg")" /y >/dev/null 2>&1 || fail "wine reg export failed"
	iconv -f UTF-16LE -t UTF-8 "$WORK/hkcu.reg" | tr -d '\r' | grep -i sandboxdesk | sort || true
}
runvalue() { "$WINE" reg query "$RUN" /v sandboxdesk 2>/dev/null | tr -d '\r' | grep -i sandboxdesk || true; }
# contains FILE PERLEXPR: the file holds the bytes the expression makes
contains() { perl -0777 -e 'my $f = do { local $/; open my $h, "<:raw", $ARGV[0] or die; <$h> }; exit(index($f, eval $ARGV[1]) < 0)' "$1" "$2"; }

start_xvfb 1000x640x24
export DISPLAY="$XDISPLAY"
cleanup() {
	set +e
	[ -x "$INSTDIR/sandboxdesk.exe" ] && "$WINE" "$INSTDIR/sandboxdesk.exe" quit >/dev/null 2>&1
	# a check that failed half way may leave the app, or the fake WSL's
	# sandboxes, running: this check's own processes, found by their paths
	for p in $(ps -eo pid=,args= | grep -i -e 'Programs.sandboxdesk.sandboxdesk-app.exe' -e 'Programs.sandboxdesk.sandboxdesk-serve.exe' -e "$(win "$FAKE" | sed 's/\\/./g') -d sandboxdesk-" | grep -v grep | awk '{print $1}'); do
		kill "$p" 2>/dev/null
	done
	kill "$XPID" 2>/dev/null
	rm -rf "$WORK"
	true
}
trap cleanup EXIT

# a run that stopped half way left an install: its uninstaller takes it
if [ -e "$INSTDIR/uninstall.exe" ]; then
	"$WINE" "$INSTDIR/uninstall.exe" /S >/dev/null 2>&1 || true
	for _ in $(seq 300); do [ -e "$INSTDIR" ] || break; sleep 0.2; done
fi
files >"$WORK/files.before"
keys >"$WORK/keys.before"

echo "install, without Open at login"
"$WINE" "$SETUP" /S /AUTOSTART=0 || fail "the silent install failed ($?)"
for f in sandboxdesk-app.exe sandboxdesk.exe sandboxdesk-serve.exe uninstall.exe; do
	[ -s "$INSTDIR/$f" ] || fail "the install put no $f in $INSTDIR"
done
[ -s "$LNK" ] || fail "the install made no Start menu entry ($LNK)"
[ -z "$(runvalue)" ] || fail "an install without Open at login wrote the Run value: $(runvalue)"
query=$("$WINE" reg query "$UNINST" 2>/dev/null | tr -d '\r') || fail "the uninstaller is not registered under $UNINST"
for want in "DisplayName.*sandboxdesk" "DisplayVersion.*$VERSION" 'UninstallString.*uninstall.exe' 'QuietUninstallString.*/S'; do
	printf "%s\n" "$query" | grep -q "$want" || fail "$UNINST lacks $want: $query"
done
# the programs carry their version (UTF-16, as Windows reads it) and icon
for f in sandboxdesk-app.exe sandboxdesk.exe sandboxdesk-serve.exe; do
	contains "$INSTDIR/$f" 'join("\0", split(//, "'"$VERSION"'"))."\0"' || fail "$f carries no version $VERSION"
	contains "$INSTDIR/$f" 'do { local $/; open my $h, "<:raw", "assets/icons/sandboxdesk-256.png" or die; <$h> }' || fail "$f carries no icon"
done

echo "install again, with Open at login"
"$WINE" "$SETUP" /S /AUTOSTART=1 || fail "the second silent install failed ($?)"
got=$(runvalue)
printf "%s\n" "$got" | grep -qF "\"C:\\users\\" || fail "the Run value is not the installed app, quoted: $got"
printf "%s\n" "$got" | grep -qF 'AppData\Local\Programs\sandboxdesk\sandboxdesk-app.exe"' || fail "the Run value is not the installed app: $got"

echo "open the app from its Start menu entry"
mkdir -p "$WORK/root/wsl-images" "$WORK/img/etc"
echo 'root:x:0:0:root:/root:/bin/sh' >"$WORK/img/etc/passwd"
tar -C "$WORK/img" -cf "$WORK/root/wsl-images/base.tar" etc
export SANDBOXDESK_ROOT="$(win "$WORK/root")" SANDBOXDESK_WSL="$(win "$FAKE")" FAKEWSL_HOME="$(win "$WORK/fakewsl")"
"$WINE" start /unix "$LNK" || fail "wine start of the Start menu entry failed"
sd() { "$WINE" "$INSTDIR/sandboxdesk.exe" "$@"; }
w=""
for _ in $(seq 300); do
	w=$(xdotool search --name '^sandboxdesk$' 2>/dev/null | head -n 1) && [ -n "$w" ] && break
	sleep 0.2
done
[ -n "$w" ] || fail "the installed app drew no window"
# the window is the installed program's, started by the entry
ps -eo args | grep -v grep | grep -qi 'AppData.Local.Programs.sandboxdesk.sandboxdesk-app.exe' || fail "the running app is not the installed one"
# the command line waits for the app's controller, which holds the root's
# lock before it answers, instead of starting one of its own
for _ in $(seq 300); do [ -e "$WORK/root/controller.lock" ] && break; sleep 0.2; done
sd create dev >/dev/null || fail "the installed command line could not create a sandbox"
sd list | grep -q dev || fail "the installed command line does not list the sandbox"
[ ! -e "$WORK/root/serve.log" ] || fail "the command line started a controller of its own instead of using the app's"
xdotool windowmove "$w" 0 30 windowsize "$w" 800 500 2>/dev/null || true
sleep 3
import -window root -crop 800x500+0+30 +repage -colors 64 "PNG8:$OUT"
echo "wrote $OUT"

echo "uninstall while the app runs: refused"
"$WINE" "$INSTDIR/uninstall.exe" /S >/dev/null 2>&1 || true
# the uninstaller runs a copy of itself from %TEMP% (Un.exe), in the
# background: its end is awaited by name
sleep 1
for _ in $(seq 300); do ps -eo args | grep -v grep | grep -q 'Temp.*Un\.exe' || break; sleep 0.2; done
[ -s "$INSTDIR/sandboxdesk-app.exe" ] || fail "the uninstaller removed the app while it ran"
[ -s "$INSTDIR/uninstall.exe" ] && "$WINE" reg query "$UNINST" >/dev/null 2>&1 || fail "the uninstaller, refusing, removed part of the install"

echo "quit, uninstall"
sd quit >/dev/null || fail "the installed command line could not quit the app"
for _ in $(seq 300); do ps -eo args | grep -v grep | grep -qi 'Programs.sandboxdesk.sandboxdesk' || break; sleep 0.2; done
echo "the command line starts the controller program beside it"
ROOT2=$(win "$WORK/root2")
sd --root "$ROOT2" list >"$WORK/list.log" 2>&1 || fail "list, starting a controller: $(cat "$WORK/list.log") $(cat "$WORK/root2/serve.log" 2>/dev/null)"
[ -s "$WORK/root2/serve.log" ] || fail "list started no controller of its own"
sd --root "$ROOT2" quit >/dev/null || fail "the installed command line could not quit its controller"
for _ in $(seq 300); do ps -eo args | grep -v grep | grep -qi 'Programs.sandboxdesk.sandboxdesk' || break; sleep 0.2; done
"$WINE" "$INSTDIR/uninstall.exe" /S || fail "the silent uninstall failed ($?)"
for _ in $(seq 300); do [ -e "$INSTDIR" ] || break; sleep 0.2; done
[ ! -e "$INSTDIR" ] || fail "the uninstall left $INSTDIR: $(ls "$INSTDIR"); running: $(ps -eo pid,args | grep -i '\.exe' | grep -v grep)"
[ -z "$(runvalue)" ] || fail "the uninstall left the Run value"
files >"$WORK/files.after"
keys >"$WORK/keys.after"
diff "$WORK/files.before" "$WORK/files.after" >"$WORK/files.diff" || fail "files differ after the uninstall:
$(cat "$WORK/files.diff")"
diff "$WORK/keys.before" "$WORK/keys.after" >"$WORK/keys.diff" || fail "registry entries differ after the uninstall:
$(cat "$WORK/keys.diff")"
echo "ok: installed, the Run value when chosen, the window drawn, uninstalled without a trace"
