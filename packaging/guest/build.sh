#!/bin/sh
# Builds a VM sandbox's guest image from Debian packages and our agent:
#   build.sh ARCH FLAVOR OUT
# writes OUT/vmlinuz, OUT/initrd.gz and OUT/manifest.json (with their
# sha256s). Nothing in OUT changes until the whole image is built.
#
# FLAVOR tiny: busybox-static and the agent in the initrd, which is the
# root file system (no root disk). The kernel is Debian's generic one: its
# cloud kernel lacks 9p. Needs apt-get, dpkg-deb, busybox and go.
set -eu

ARCH=${1:?usage: build.sh ARCH FLAVOR OUT}
FLAVOR=${2:?usage: build.sh ARCH FLAVOR OUT}
OUT=${3:?usage: build.sh ARCH FLAVOR OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

case "$ARCH" in
amd64) GOARCH=amd64 ;;
*) echo "guest-image: ARCH=$ARCH is not built yet (amd64 is)" >&2; exit 2 ;;
esac
[ "$FLAVOR" = tiny ] || { echo "guest-image: FLAVOR=$FLAVOR is not built yet (tiny is)" >&2; exit 2; }
for tool in apt-get apt-cache dpkg-deb busybox go sha256sum gzip; do
	command -v "$tool" >/dev/null 2>&1 || { echo "guest-image: $tool is needed" >&2; exit 1; }
done

mkdir -p "$OUT"
CACHE=${GUEST_DEBS:-"$OUT/../debs"}
mkdir -p "$CACHE"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# the generic kernel's real package, fetched (never installed) and cached
KPKG=$(apt-cache depends "linux-image-$ARCH" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$KPKG" ] || { echo "guest-image: apt knows no linux-image-$ARCH (run apt-get update)" >&2; exit 1; }
fetch() { # package -> path of its .deb in the cache
	deb=$(ls "$CACHE/$1"_*_"$ARCH".deb 2>/dev/null | head -1)
	if [ -z "$deb" ]; then
		(cd "$CACHE" && apt-get download -q "$1:$ARCH" >/dev/null 2>&1) || { echo "guest-image: apt-get download $1:$ARCH failed" >&2; exit 1; }
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
	"$ROOT/etc" "$ROOT/dev" "$ROOT/proc" "$ROOT/sys" "$ROOT/tmp" "$ROOT/run" "$ROOT/home/user" "$ROOT/workspace"
cp "$WORK/b/bin/busybox" "$ROOT/bin/busybox"
for applet in $("$WORK/b/bin/busybox" --list-full); do
	[ -e "$ROOT/$applet" ] || ln -s /bin/busybox "$ROOT/$applet"
done

# the virtio, 9p (qemu), vsock and virtio-fs (vz) modules, in the order
# their dependencies need
MODS=$(ls -d "$WORK"/k/lib/modules/*)
: >"$ROOT/lib/modules/sandboxdesk.order"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_console \
	netfs fscache 9pnet 9pnet_virtio 9p failover net_failover virtio_net virtio_blk \
	vsock vmw_vsock_virtio_transport_common vmw_vsock_virtio_transport fuse virtiofs; do
	ko=$(find "$MODS/kernel" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
	if [ -z "$ko" ]; then
		grep -q "/$m.ko" "$MODS/modules.builtin" || { echo "guest-image: module $m is neither in $KPKG nor built in" >&2; exit 1; }
		continue
	fi
	case "$ko" in *.xz) xz -dc "$ko" >"$ROOT/lib/modules/$m.ko" ;; *) cp "$ko" "$ROOT/lib/modules/$m.ko" ;; esac
	echo "$m.ko" >>"$ROOT/lib/modules/sandboxdesk.order"
done

(cd "$REPO" && CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH go build -trimpath -ldflags=-buildid= -o "$ROOT/init" ./backends/vm/guest/sandboxdesk-guest)

printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nuser:x:1000:\n' >"$ROOT/etc/group"
printf 'hosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"

# the same bytes from the same inputs: fixed times, sorted names, owner root
find "$ROOT" -exec touch -h -d @0 {} +
(cd "$ROOT" && find . | LC_ALL=C sort | busybox cpio -o -H newc -R 0:0 2>/dev/null) | gzip -n -9 >"$WORK/initrd.gz"
cp "$WORK"/k/boot/vmlinuz-* "$WORK/vmlinuz"

KSUM=$(sha256sum "$WORK/vmlinuz" | cut -d' ' -f1)
ISUM=$(sha256sum "$WORK/initrd.gz" | cut -d' ' -f1)
cat >"$WORK/manifest.json" <<JSON
{
  "name": "$FLAVOR",
  "arch": "$ARCH",
  "flavor": "$FLAVOR",
  "kernelPackage": "$(basename "$KDEB")",
  "kernel": {"file": "vmlinuz", "sha256": "$KSUM"},
  "initrd": {"file": "initrd.gz", "sha256": "$ISUM"},
  "cmdline": "console=ttyS0 quiet panic=-1"
}
JSON
# the manifest last: an image is there once its manifest is
rm -f "$OUT/manifest.json"
mv "$WORK/vmlinuz" "$OUT/vmlinuz"
mv "$WORK/initrd.gz" "$OUT/initrd.gz"
mv "$WORK/manifest.json" "$OUT/manifest.json"
echo "guest-image: $OUT ($KPKG, initrd $(du -h "$OUT/initrd.gz" | cut -f1))"
