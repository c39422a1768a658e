#!/bin/sh
# Builds the debian flavor's root file system (called by build.sh):
#   debian.sh ARCH TREE DISK TAR DEBCACHE MIRROR SUITE
# debootstraps a Debian system into TREE with what a coding agent expects,
# adds the sandbox's user (uid 1000), then writes it as an ext4 image
# (DISK, made by mkfs.ext4 -d: nothing is mounted) and as a tarball (TAR,
# for WSL). SOURCE_DATE_EPOCH fixes every time written; names are sorted;
# what differs from one run to the next (logs, caches, machine ids,
# compiled Python) is left out, so the same inputs give the same bytes.
set -eu

ARCH=$1 TREE=$2 DISK=$3 TAR=$4 DEBCACHE=$5 MIRROR=$6 SUITE=$7
EPOCH=${SOURCE_DATE_EPOCH:?SOURCE_DATE_EPOCH is needed}
PACKAGES=bash,git,curl,ca-certificates,python3,make,gcc,libc6-dev,openssh-client

for tool in debootstrap mkfs.ext4 debugfs tar; do
	command -v "$tool" >/dev/null 2>&1 || { echo "guest-image: $tool is needed for FLAVOR=debian (make deps)" >&2; exit 1; }
done

mkdir -p "$DEBCACHE"
# the downloaded packages stay in DEBCACHE: the next build only unpacks
if ! debootstrap --variant=minbase --arch="$ARCH" --cache-dir="$(cd "$DEBCACHE" && pwd)" --include="$PACKAGES" \
	"$SUITE" "$TREE" "$MIRROR" >"$TREE.log" 2>&1; then
	echo "guest-image: debootstrap failed:" >&2
	tail -20 "$TREE.log" >&2
	exit 1
fi

# the sandbox's user, as the agent runs commands (shadow dates its password
# from SOURCE_DATE_EPOCH)
chroot "$TREE" /usr/sbin/useradd --create-home --uid 1000 --user-group --shell /bin/bash user
mkdir -p "$TREE/workspace"
printf 'sandbox\n' >"$TREE/etc/hostname"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$TREE/etc/hosts"
# the init writes the guest's own when it has a network
rm -f "$TREE/etc/resolv.conf"
: >"$TREE/etc/machine-id"

# what a run leaves that the next would write differently
rm -rf "$TREE/var/log/"* "$TREE/var/cache/apt/"*.bin "$TREE/var/cache/apt/archives/"*.deb \
	"$TREE/var/lib/apt/lists/"* "$TREE/var/cache/ldconfig/aux-cache" "$TREE/var/lib/dbus/machine-id" \
	"$TREE/etc/"*- "$TREE/var/lib/dpkg/"*-old "$TREE/var/cache/debconf/"*-old "$TREE/debootstrap"
find "$TREE/usr/lib" -name __pycache__ -type d -prune -exec rm -rf {} +

# times: those after SOURCE_DATE_EPOCH (written by this build) become it,
# older ones (a package's own) stay
find "$TREE" -newermt "@$EPOCH" -print0 | xargs -0r touch -h -d "@$EPOCH"

tar --sort=name --numeric-owner --format=pax --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	--mtime="@$EPOCH" --clamp-mtime -C "$TREE" -cf "$TAR" .

# the disk: the tree and room for a sandbox's work, its ids derived from
# the tree's bytes
MIB=$(du -sm --apparent-size "$TREE" | cut -f1)
SIZE=$((MIB * 5 / 4 + 1024))
ID=$(sha256sum "$TAR" | cut -c1-32 | sed 's/\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
rm -f "$DISK"
truncate -s "${SIZE}M" "$DISK"
E2FSPROGS_FAKE_TIME=$EPOCH mkfs.ext4 -q -F -L sandboxdesk -U "$ID" -E "hash_seed=$ID,root_owner=0:0" -d "$TREE" "$DISK"
# mkfs.ext4 copies the change times of the tree, which no one can set: fix
# them (and the access times its reading moved) in the image itself
(cd "$TREE" && find . -print) | LC_ALL=C sort | while IFS= read -r p; do
	case "$p" in *'"'* | *'\'*) echo "guest-image: a file name debugfs cannot quote: $p" >&2; exit 1 ;; esac
	p=${p#.}
	echo "sif \"${p:-/}\" ctime @$EPOCH"
	echo "sif \"${p:-/}\" atime @$EPOCH"
done >"$TREE.debugfs"
# debugfs says what failed, but exits 0 whatever happened
E2FSPROGS_FAKE_TIME=$EPOCH debugfs -w -f "$TREE.debugfs" "$DISK" >/dev/null 2>"$TREE.debugfs.log" || true
if grep -v '^debugfs [0-9]' "$TREE.debugfs.log" | grep -q .; then
	echo "guest-image: debugfs failed:" >&2
	grep -v '^debugfs [0-9]' "$TREE.debugfs.log" | head -5 >&2
	exit 1
fi
