#!/bin/sh
# Builds the Linux packages from the four binaries in BINDIR:
#   OUTDIR/sandboxdesk_DEBVERSION_ARCH.deb             for dpkg -i / apt install
#   OUTDIR/sandboxdesk-VERSION-linux-ARCH.tar.xz       portable, with install.sh --prefix
# Both hold one tree: the binaries in lib/sandboxdesk (the command line
# finds the app, the controller program and the agent beside it, links
# resolved), bin/sandboxdesk a relative link to it, the desktop entry, the
# hicolor icons and the AppStream metadata.
#   sh packaging/linux/package.sh VERSION ARCH BINDIR OUTDIR
set -eu
VERSION=$1 ARCH=$2 BINDIR=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
ID=dev.sandboxdesk.app
for tool in dpkg-deb tar xz readelf; do
	command -v "$tool" >/dev/null 2>&1 || { echo "package-linux: $tool is missing (make deps installs it)" >&2; exit 1; }
done
for b in sandboxdesk sandboxdesk-serve sandboxdesk-app sandboxdesk-agent; do
	[ -x "$BINDIR/$b" ] || { echo "package-linux: $BINDIR/$b is missing (make build)" >&2; exit 1; }
done

# the Debian version orders the builds for apt; untagged builds by their
# number of commits
commits=$(git -C "$TOP" rev-list --count HEAD 2>/dev/null || echo 0)
DEBVERSION=$(sh "$HERE/debversion.sh" "$VERSION" "$commits")

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/sandboxdesk_*.deb "$OUT"/sandboxdesk-*-linux-*.tar.xz # one version at a time

# the tree, as it lies under /usr (the .deb) or a prefix (the tarball)
T="$WORK/tree"
mkdir -p "$T/bin" "$T/lib/sandboxdesk" "$T/share/applications" "$T/share/metainfo" "$T/share/icons/hicolor/scalable/apps"
for b in sandboxdesk sandboxdesk-serve sandboxdesk-app sandboxdesk-agent; do
	install -m 0755 "$BINDIR/$b" "$T/lib/sandboxdesk/$b"
done
ln -s ../lib/sandboxdesk/sandboxdesk "$T/bin/sandboxdesk"
install -m 0644 "$HERE/sandboxdesk.desktop" "$T/share/applications/$ID.desktop"
sed -e "s/@VERSION@/$VERSION/" -e "s/@DATE@/$(date -u +%Y-%m-%d)/" "$HERE/$ID.metainfo.xml" >"$T/share/metainfo/$ID.metainfo.xml"
chmod 0644 "$T/share/metainfo/$ID.metainfo.xml"
install -m 0644 "$TOP/assets/icon.svg" "$T/share/icons/hicolor/scalable/apps/sandboxdesk.svg"
# hicolor's sizes stop at 512; the 1024 is for macOS
for s in 16 24 32 48 64 128 256 512; do
	mkdir -p "$T/share/icons/hicolor/${s}x$s/apps"
	install -m 0644 "$TOP/assets/icons/sandboxdesk-$s.png" "$T/share/icons/hicolor/${s}x$s/apps/sandboxdesk.png"
done

# the .deb: the tree under /usr
D="$WORK/deb"
mkdir -p "$D/DEBIAN" "$D/usr"
cp -a "$T/." "$D/usr/"
# the libraries the binaries name, and those GLFW opens by name at run
# time (cursors, screens, input), as the packages that hold them here
needed=$(for b in "$T"/lib/sandboxdesk/*; do readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u)
libdeps=$(for lib in $needed; do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
	# dpkg knows a library by the name its package gave it, which on a
	# merged /usr may be the link or its target
	[ -n "$path" ] && { dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null; } | sed -n '1s/:.*//p'
done | sort -u | tr '\n' ' ')
depends="bubblewrap, slirp4netns | passt"
for p in $libdeps libxcursor1 libxrandr2 libxinerama1 libxi6 libxxf86vm1; do
	depends="$depends, $p"
done
cat >"$D/DEBIAN/control" <<CONTROL
Package: sandboxdesk
Version: $DEBVERSION
Architecture: $ARCH
Maintainer: The sandboxdesk authors <maintainers@sandboxdesk.dev>
Installed-Size: $(du -sk "$D/usr" | cut -f1)
Depends: $depends
Recommends: qemu-system-x86
Section: devel
Priority: optional
Homepage: https://sandboxdesk.dev
Description: local sandboxes for coding agents
 sandboxdesk runs sandboxes on this machine for coding agents and the
 commands they run: a bubblewrap jail or a qemu virtual machine, with
 memory and disk limits, an outbound-only network and checkpoints. It
 has a desktop app and a command line (sandboxdesk).
CONTROL
DEB="$OUT/sandboxdesk_${DEBVERSION}_$ARCH.deb"
dpkg-deb --root-owner-group -Zxz --build "$D" "$DEB" >/dev/null
echo "$DEB"

# the tarball: the tree and install.sh, in one folder
name="sandboxdesk-$VERSION-linux-$ARCH"
mkdir "$WORK/$name"
cp -a "$T/." "$WORK/$name/"
install -m 0755 "$HERE/install.sh" "$WORK/$name/install.sh"
tar -C "$WORK" --owner=0 --group=0 --numeric-owner --sort=name -cJf "$OUT/$name.tar.xz" "$name"
echo "$OUT/$name.tar.xz"
