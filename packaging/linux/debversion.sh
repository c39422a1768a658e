#!/bin/sh
# Prints the Debian version of a sandboxdesk version (git describe's
# output), one that dpkg orders the way the releases came, so that apt
# installs each newer .deb as an upgrade and never as a downgrade:
#   v1.2.0                    1.2.0
#   v1.2.0-rc1                1.2.0~rc1        (before 1.2.0, as ~ sorts first)
#   v1.2.0-3-gabc1234-dirty   1.2.0+3.gabc1234.dirty
#   abc1234 (no tag yet)      0.0.0+COMMITS.gabc1234
# COMMITS, the number of commits of the build, orders untagged builds: a
# bare commit hash has no order of its own.
#   sh packaging/linux/debversion.sh VERSION [COMMITS]
set -eu
v=$1 commits=${2:-0}
clean() { printf '%s' "$1" | tr -c 'A-Za-z0-9.' '.'; }
dirty=""
case "$v" in *-dirty) v=${v%-dirty} dirty=dirty ;; esac
case "$v" in
v[0-9]*)
	v=${v#v}
	# git describe's tail after the tag: -N-gHASH
	tail=$(printf '%s\n' "$v" | sed -n 's/.*-\([0-9][0-9]*-g[0-9a-f][0-9a-f]*\)$/\1/p')
	[ -z "$tail" ] || v=${v%-"$tail"}
	out=$(clean "${v%%-*}")
	case "$v" in *-*) out="$out~$(clean "${v#*-}")" ;; esac
	after=$(printf '%s' "$tail" | tr - .)
	[ -z "$dirty" ] || after="${after:+$after.}$dirty"
	echo "$out${after:++$after}"
	;;
*) echo "0.0.0+$commits.g$(clean "$v")${dirty:+.$dirty}" ;;
esac
