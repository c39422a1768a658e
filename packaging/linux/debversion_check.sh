#!/bin/sh
# Checks that dpkg orders the Debian versions of builds as they came, so
# apt upgrades from each to the next: each line is older than the one
# after it (VERSION COMMITS).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
command -v dpkg >/dev/null 2>&1 || { echo "debversion-check: skipped: dpkg is missing" >&2; exit 0; }
prev="" prevv=""
while read -r v n; do
	d=$(sh "$HERE/debversion.sh" "$v" "$n")
	if [ -n "$prev" ] && ! dpkg --compare-versions "$prev" lt "$d"; then
		echo "debversion-check: FAIL: $prevv ($prev) should be older than $v ($d)" >&2
		exit 1
	fi
	prev=$d prevv=$v
done <<LIST
fff0000 41
aaa0000 42
aaa0000-dirty 42
v1.2.0-rc1 50
v1.2.0-rc1-3-gabc1234 53
v1.2.0 60
v1.2.0-3-gabc1234 63
v1.2.0-3-gabc1234-dirty 63
v1.2.0-12-g0123abc 72
v1.3.0-rc1 80
v1.3.0 81
v1.10.0 90
LIST
echo "debversion-check: builds upgrade in order"
