#!/bin/sh
# orphans.sh runs the crash acceptance loop longer than "make test" does:
# RUNS times (30 unless given), a controller making 20 sandboxes at once is
# SIGKILLed at a random moment and the root reopened; each run must end with
# no orphan sandbox process, no second tree for one sandbox, every folder and
# workspace kept, and the database's integrity check ok.
#
#   sh testdata/orphans.sh [RUNS]
set -eu
runs=${1:-30}
case $runs in ''|*[!0-9]*) echo "orphans.sh: RUNS must be a number, got '$runs'" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
SANDBOXDESK_ORPHAN_RUNS=$runs exec go test -tags migrated_fynedo -count=1 -v -timeout 0 \
	-run '^TestKilledDuringCreatesLeavesNoOrphans$' ./backends/bubblewrap/
