#!/bin/sh
# Installs sandboxdesk from this folder under a prefix, or removes it.
#   ./install.sh [--prefix DIR]      default ~/.local (/usr/local as root)
#   ./install.sh --uninstall [--prefix DIR]
# Installed: DIR/bin/sandboxdesk (the command line; with no arguments it
# opens the app), DIR/lib/sandboxdesk (the binaries), the menu entry, the
# icons and the AppStream metadata under DIR/share. What was installed is
# listed in DIR/lib/sandboxdesk/installed, which the uninstall removes,
# with every folder it made that is left empty, and nothing else.
# DIR/lib/sandboxdesk/uninstall.sh runs the uninstall.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
mode=install
prefix=""
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
	--prefix=*) prefix=${1#--prefix=}; shift ;;
	--uninstall) mode=uninstall; shift ;;
	-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
if [ -z "$prefix" ]; then
	if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
fi
case "$prefix" in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
# the prefix goes into the menu entry's Exec line, in double quotes when
# it holds a space or another letter the line reserves; there " ` $ \ and
# % would each need an escape of their own, and a newline ends the line
case "$prefix" in
*[\"\`\$\\%]* | *"
"*) echo "install.sh: choose a prefix without \" \` \$ \\ % or a line break (not $prefix)" >&2; exit 2 ;;
esac
lib="$prefix/lib/sandboxdesk"
manifest="$lib/installed"

uninstall() {
	[ -f "$manifest" ] || { echo "install.sh: sandboxdesk is not installed under $prefix (no $manifest)" >&2; exit 1; }
	list=$(cat "$manifest")
	rm -f "$manifest"
	# files first, then folders deepest first, only those the install made
	echo "$list" | sed -n 's/^f //p' | while IFS= read -r p; do rm -f "$prefix/$p"; done
	echo "$list" | sed -n 's/^d //p' | sort -r | while IFS= read -r p; do rmdir "$prefix/$p" 2>/dev/null || true; done
	echo "sandboxdesk removed from $prefix"
}

if [ "$mode" = uninstall ]; then
	uninstall
	exit 0
fi
[ -x "$HERE/lib/sandboxdesk/sandboxdesk" ] || { echo "install.sh: run it from the unpacked sandboxdesk folder" >&2; exit 1; }
if [ -f "$manifest" ]; then
	uninstall >/dev/null # an older install: replaced, not mixed
fi
mkdir -p "$prefix"
new="$(mktemp)"
trap 'rm -f "$new"' EXIT
# folders first, noting those that were not there
(cd "$HERE" && find bin lib share -type d) | sort | while IFS= read -r d; do
	if [ ! -d "$prefix/$d" ]; then
		mkdir -p "$prefix/$d"
		echo "d $d" >>"$new"
	fi
done
(cd "$HERE" && find bin lib share ! -type d) | sort | while IFS= read -r f; do
	rm -f "$prefix/$f"
	cp -P "$HERE/$f" "$prefix/$f"
	echo "f $f" >>"$new"
done
# the menu entry starts this install, wherever PATH points
entry=share/applications/dev.sandboxdesk.app.desktop
exe="$prefix/bin/sandboxdesk"
case "$exe" in
*[!A-Za-z0-9/._+-]*) exe="\"$exe\"" ;;
esac
# | and & mean something to sed's replacement
sed -i "s|^Exec=.*|Exec=$(printf '%s' "$exe" | sed 's/[|&]/\\&/g')|" "$prefix/$entry"
cat >"$lib/uninstall.sh" <<UNINSTALL
#!/bin/sh
# removes the sandboxdesk installed under $prefix
set -eu
exec sh "$lib/install.sh" --uninstall --prefix "$prefix"
UNINSTALL
cp "$HERE/install.sh" "$lib/install.sh"
chmod 0755 "$lib/uninstall.sh" "$lib/install.sh"
printf 'f %s\n' lib/sandboxdesk/uninstall.sh lib/sandboxdesk/install.sh >>"$new"
mv "$new" "$manifest"
trap - EXIT
echo "sandboxdesk $("$prefix/bin/sandboxdesk" --version | cut -d' ' -f2) installed under $prefix"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "add $prefix/bin to PATH to type sandboxdesk in a terminal" ;;
esac
echo "to remove it: $lib/uninstall.sh"
