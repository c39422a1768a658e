#!/bin/sh
# Builds a VM sandbox's guest image from Debian packages and our agent:
#   build.sh ARCH FLAVOR OUT
# writes into OUT the kernel (vmlinuz on amd64, the uncompressed Image on
# arm64), initrd.gz and manifest.json (with their sha256s); FLAVOR debian
# adds the root disk (rootfs.ext4) and the same tree as a tarball
# (rootfs.tar, for WSL). Nothing in OUT changes until the whole image is
# built, and the same inputs give the same bytes.
#
# ARCH amd64 | arm64. The kernel is Debian's generic one (its cloud kernel
# lacks 9p), fetched and never installed. The host's own architecture is
# fetched through the host's apt; another one through a private apt state
# in the cache (its own lists, checked against Debian's archive keys), so
# the host's package configuration is never changed and no root is needed
# (dpkg --add-architecture would change both).
#
# FLAVOR tiny: busybox-static and the agent in the initrd, which is the
# root file system (no root disk); seconds to build, used by tests.
# FLAVOR debian: the same initrd, which mounts rootfs.ext4 (a Debian
# system by debootstrap with what a coding agent expects) and switches to
# it. Needs root (debootstrap) and the host's architecture.
#
# Needs apt-get, dpkg-deb, busybox, cpio and go; debian also debootstrap, mkfs.ext4
# and tar. GUEST_DEBS names the package cache (OUT/../debs).
set -eu

ARCH=${1:?usage: build.sh ARCH FLAVOR OUT}
FLAVOR=${2:?usage: build.sh ARCH FLAVOR OUT}
OUT=${3:?usage: build.sh ARCH FLAVOR OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
MIRROR=${GUEST_MIRROR:-http://deb.debian.org/debian}
SUITE=${GUEST_SUITE:-bookworm}

case "$ARCH" in
amd64) GOARCH=amd64 CONSOLE=ttyS0 KFILE=vmlinuz ;;
arm64) GOARCH=arm64 CONSOLE=ttyAMA0 KFILE=Image ;;
*) echo "guest-image: ARCH=$ARCH is not built (amd64 and arm64 are)" >&2; exit 2 ;;
esac
case "$FLAVOR" in
tiny) ;;
debian)
	# debootstrap runs the packages' scripts: this machine's architecture
	# only, and as root
	[ "$ARCH" = "$(dpkg --print-architecture)" ] || { echo "guest-image: FLAVOR=debian is built for this machine's architecture ($(dpkg --print-architecture)) only" >&2; exit 2; }
	[ "$(id -u)" -eq 0 ] || { echo "guest-image: FLAVOR=debian runs debootstrap, which needs root" >&2; exit 1; }
	;;
*) echo "guest-image: FLAVOR=$FLAVOR is not built (tiny and debian are)" >&2; exit 2 ;;
esac
for tool in apt-get apt-cache dpkg dpkg-deb busybox cpio go sha256sum gzip; do
	command -v "$tool" >/dev/null 2>&1 || { echo "guest-image: $tool is needed" >&2; exit 1; }
done

mkdir -p "$OUT"
CACHE=${GUEST_DEBS:-"$OUT/../debs"}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# every time written into the image: that of the last change to how images
# are made (not of any commit: an unchanged recipe keeps its digests)
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$REPO" log -1 --format=%ct -- packaging/guest backends/vm/guest 2>/dev/null || true)
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
fi
export SOURCE_DATE_EPOCH

# apt: the host's for its own architecture, a private state otherwise
if [ "$ARCH" = "$(dpkg --print-architecture)" ]; then
	apt() { "$@"; }
else
	APTDIR="$CACHE/apt-$ARCH"
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial"
	printf 'deb %s %s main\ndeb %s %s-security main\n' "$MIRROR" "$SUITE" "${MIRROR%/debian}/debian-security" "$SUITE" >"$APTDIR/sources.list"
	apt() {
		"$@" -o Dir::State="$APTDIR" -o Dir::State::Lists="$APTDIR/lists" -o Dir::State::status=/dev/null \
			-o Dir::Cache="$APTDIR" -o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
			-o APT::Architecture="$ARCH" -o APT::Architectures="$ARCH" -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	}
	# lists a day old are fetched again: a kernel gets security fixes
	if [ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		apt apt-get -q update >"$WORK/apt.log" 2>&1 || { echo "guest-image: apt-get update for $ARCH failed:" >&2; cat "$WORK/apt.log" >&2; exit 1; }
	fi
fi

# the generic kernel's real package, fetched (never installed) and cached
KPKG=$(apt apt-cache depends "linux-image-$ARCH" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$KPKG" ] || { echo "guest-image: apt knows no linux-image-$ARCH (run apt-get update)" >&2; exit 1; }
fetch() { # package -> path of its .deb in the cache
	deb=$(ls "$CACHE/$1"_*_"$ARCH".deb 2>/dev/null | head -1)
	if [ -z "$deb" ]; then
		(cd "$CACHE" && apt apt-get download -q "$1:$ARCH" >"$WORK/apt.log" 2>&1) || { echo "guest-image: apt-get download $1:$ARCH failed:" >&2; cat "$WORK/apt.log" >&2; exit 1; }
		deb=$(ls "$CACHE/$1"_*_"$ARCH".deb | head -1)
	fi
	echo "$deb"
}
KDEB=$(fetch "$KPKG")
BDEB=$(fetch busybox-static)
dpkg-deb -x "$KDEB" "$WORK/k"
dpkg-deb -x "$BDEB" "$WORK/b"

ROOT="$WORK/root"
mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/lib/modules" \
	"$ROOT/etc" "$ROOT/dev" "$ROOT/proc" "$ROOT/sys" "$ROOT/tmp" "$ROOT/run" "$ROOT/home/user" "$ROOT/workspace" "$ROOT/sysroot"
cp "$WORK/b/bin/busybox" "$ROOT/bin/busybox"
# the list of applets from the host's busybox: the guest's may be another
# architecture's, which this machine cannot run
for applet in $(busybox --list-full); do
	[ -e "$ROOT/$applet" ] || ln -s /bin/busybox "$ROOT/$applet"
done

# the virtio, 9p (qemu), vsock and virtio-fs (vz) and ext4 (a root
# disk) modules, in the order their dependencies need
MODS=$(ls -d "$WORK"/k/lib/modules/*)
: >"$ROOT/lib/modules/sandboxdesk.order"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_console \
	netfs fscache 9pnet 9pnet_virtio 9p failover net_failover virtio_net virtio_blk \
	vsock vmw_vsock_virtio_transport_common vmw_vsock_virtio_transport fuse virtiofs \
	crc16 mbcache jbd2 crc32c_generic ext4; do
	ko=$(find "$MODS/kernel" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
	if [ -z "$ko" ]; then
		grep -q "/$m.ko" "$MODS/modules.builtin" || { echo "guest-image: module $m is neither in $KPKG nor built in" >&2; exit 1; }
		continue
	fi
	case "$ko" in *.xz) xz -dc "$ko" >"$ROOT/lib/modules/$m.ko" ;; *) cp "$ko" "$ROOT/lib/modules/$m.ko" ;; esac
	echo "$m.ko" >>"$ROOT/lib/modules/sandboxdesk.order"
done

# no version control stamp: a commit elsewhere in the tree is no new agent
(cd "$REPO" && CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH go build -trimpath -buildvcs=false -ldflags=-buildid= -o "$ROOT/init" ./backends/vm/guest/sandboxdesk-guest)

printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nuser:x:1000:\n' >"$ROOT/etc/group"
printf 'hosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"

# the same bytes from the same inputs: fixed times, sorted names, owner root
find "$ROOT" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
# (GNU cpio numbers the entries itself: busybox's writes the host's inode
# numbers, which differ from one build to the next)
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -9 >"$WORK/initrd.gz"
K=$(ls "$WORK"/k/boot/vmlinuz-* | head -1)
# vz boots only an uncompressed arm64 Image; Debian's already is one
case "$(od -An -tx1 -N2 "$K" | tr -d ' ')" in
1f8b) gzip -dc "$K" >"$WORK/$KFILE" ;;
*) cp "$K" "$WORK/$KFILE" ;;
esac

CMDLINE="console=$CONSOLE quiet panic=-1"
DISK=""
if [ "$FLAVOR" = debian ]; then
	sh "$HERE/debian.sh" "$ARCH" "$WORK/sysroot" "$WORK/rootfs.ext4" "$WORK/rootfs.tar" "$CACHE/debootstrap-$ARCH" "$MIRROR" "$SUITE"
	DSUM=$(sha256sum "$WORK/rootfs.ext4" | cut -d' ' -f1)
	TSUM=$(sha256sum "$WORK/rootfs.tar" | cut -d' ' -f1)
	DISK=$(printf '\n  "rootDisk": {"file": "rootfs.ext4", "sha256": "%s"},\n  "rootTar": {"file": "rootfs.tar", "sha256": "%s"},' "$DSUM" "$TSUM")
fi

KSUM=$(sha256sum "$WORK/$KFILE" | cut -d' ' -f1)
ISUM=$(sha256sum "$WORK/initrd.gz" | cut -d' ' -f1)
cat >"$WORK/manifest.json" <<JSON
{
  "name": "$FLAVOR",
  "arch": "$ARCH",
  "flavor": "$FLAVOR",
  "kernelPackage": "$(basename "$KDEB")",
  "kernel": {"file": "$KFILE", "sha256": "$KSUM"},
  "initrd": {"file": "initrd.gz", "sha256": "$ISUM"},$DISK
  "cmdline": "$CMDLINE"
}
JSON
# the manifest last: an image is there once its manifest is
rm -f "$OUT/manifest.json"
for f in "$KFILE" initrd.gz rootfs.ext4 rootfs.tar; do
	if [ -e "$WORK/$f" ]; then mv "$WORK/$f" "$OUT/$f"; fi
done
mv "$WORK/manifest.json" "$OUT/manifest.json"
echo "guest-image: $OUT ($KPKG, initrd $(du -h "$OUT/initrd.gz" | cut -f1))"
