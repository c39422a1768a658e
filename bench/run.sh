#!/bin/sh
# make bench: one table of sandboxdesk's figures, each beside its anchor,
# measured interleaved in one run (see bench/table). Needs the binaries of
# make build, bubblewrap, and Xvfb and xdotool for the app rows.
#   sh bench/run.sh [--json FILE] [--rounds N]
set -eu
cd "$(dirname "$0")/.."
export LANG=en_US.UTF-8
exec go run -tags migrated_fynedo ./bench/table --bin bin "$@"
