#!/bin/sh
# Gathers a release into OUT: the packages this machine built (the Linux
# .deb and tar.xz, the Windows installer when it was built), the guest
# images (built here, one folder each under images/), the image catalogue
# the app pulls from (catalogue.json, its URLs under BASE/images), and
# SHA256SUMS over every file.
#   sh packaging/release.sh VERSION OUT BASE "ARCH-FLAVOR ..."
set -eu
VERSION=$1 OUT=$2 BASE=${3%/} IMAGES=$4
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT"
mkdir -p "$OUT/images"
OUT=$(cd "$OUT" && pwd)

found=0
for f in bin/packages/sandboxdesk_*.deb bin/packages/sandboxdesk-"$VERSION"-linux-*.tar.xz bin/sandboxdesk-"$VERSION"-windows-*-setup.exe; do
	[ -f "$f" ] || continue
	cp "$f" "$OUT/"
	found=$((found + 1))
done
[ "$found" -gt 0 ] || { echo "release: no package was built for $VERSION (make package-linux)" >&2; exit 1; }

# the Debian packages an image is built from stay in the build cache,
# beside the images make guest-image builds, not in the release
export GUEST_DEBS="${GUEST_DEBS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandboxdesk/guest/debs}"
for image in $IMAGES; do
	sh "$HERE/guest/build.sh" "${image%%-*}" "${image#*-}" "$OUT/images/$image"
done
if [ -f "$HERE/guest/catalogue.sh" ]; then
	sh "$HERE/guest/catalogue.sh" "$OUT/images" "$BASE/images" >"$OUT/catalogue.json"
else
	echo "release: packaging/guest/catalogue.sh is not in this tree; the release has no image catalogue" >&2
fi

(cd "$OUT" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
echo "release $VERSION in $OUT:"
(cd "$OUT" && find . -type f | sed 's|^\./|  |' | LC_ALL=C sort)
