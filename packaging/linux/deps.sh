#!/bin/sh
# Installs (as root) or names (otherwise) the Debian/Ubuntu packages that
# building, testing and running sandboxdesk need on Linux.
#   deps.sh          install what is missing when root, else print it
#   deps.sh --list   print the whole list
set -eu

# gcc, pkg-config and the GL/X11 headers: cgo for Fyne and SQLite.
# bubblewrap: the Linux sandbox backend; slirp4netns: its outbound-only
# network (network "on"); iproute2: the network tests' own test host.
# xvfb, xauth: a display for tests and screenshots. dbus-x11: a session
# bus for the tray; openbox and haskell-gtk-sni-tray-utils: a window
# manager and a StatusNotifier host for the tray check and the tray
# screenshot. imagemagick and xdotool: screenshots. busybox-static: real
# root filesystems for image tests. qemu-system-x86: VM sandboxes (their
# tests build a guest image from Debian's kernel package, fetched with
# apt-get download, never installed); qemu-system-arm: arm64 guests,
# emulated (make vm-test); qemu-utils: a VM's copy-on-write disk over an
# image's root disk (qemu-img); debootstrap: the debian guest image;
# cpio: a guest's initrd, the same bytes at every build. wine64,
# gcc-mingw-w64-x86-64: the Windows build's tests (and the Windows app)
# run under Wine.
PACKAGES="make gcc libc6-dev pkg-config libgl1-mesa-dev xorg-dev bubblewrap slirp4netns iproute2 xvfb xauth dbus-x11 openbox haskell-gtk-sni-tray-utils imagemagick xdotool busybox-static qemu-system-x86 qemu-system-arm qemu-utils debootstrap cpio ca-certificates git wine64 gcc-mingw-w64-x86-64 desktop-file-utils appstream xz-utils"
# desktop-file-utils, appstream, xz-utils: make package-linux-check
# validates the menu entry and the AppStream metadata; the tarball is xz.
# nsis: makensis builds the Windows installer (make package-windows).
PACKAGES="$PACKAGES nsis"

if [ "${1:-}" = "--list" ]; then
	echo "$PACKAGES"
	exit 0
fi

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "sandboxdesk: not a Debian/Ubuntu system; install the equivalents of:$missing" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "sandboxdesk: missing packages:$missing" >&2
	echo "install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "sandboxdesk: installing$missing" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
