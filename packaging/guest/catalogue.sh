#!/bin/sh
# Writes an image catalogue (docs/protocol.md, pullImage) for the guest
# images built into DIR by `make guest-image`, to serve from BASE:
#   catalogue.sh DIR BASE > catalogue.json
# Each image folder ARCH-FLAVOR becomes an image FLAVOR for the vm backend
# with every file of the folder, its URL BASE/ARCH-FLAVOR/FILE; copy the
# folders beside the catalogue as they are.
set -eu

DIR=${1:?usage: catalogue.sh DIR BASE}
BASE=${2:?usage: catalogue.sh DIR BASE}
BASE=${BASE%/}

printf '{"images": ['
sep=""
for m in "$DIR"/*/manifest.json; do
	[ -f "$m" ] || continue
	img=$(dirname "$m")
	folder=$(basename "$img")
	arch=${folder%%-*}
	flavor=${folder#*-}
	printf '%s\n  {"name": "%s", "backend": "vm", "arch": "%s", "description": "Linux VM (%s)", "files": [' "$sep" "$flavor" "$arch" "$flavor"
	fsep=""
	for f in $(cd "$img" && ls | LC_ALL=C sort); do
		size=$(wc -c <"$img/$f" | tr -d ' ')
		sum=$(sha256sum "$img/$f" | cut -d' ' -f1)
		printf '%s\n    {"name": "%s", "url": "%s/%s/%s", "size": %s, "sha256": "%s"}' "$fsep" "$f" "$BASE" "$folder" "$f" "$size" "$sum"
		fsep=","
	done
	printf ']}'
	sep=","
done
printf '\n]}\n'
