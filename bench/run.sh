#!/bin/sh
# Benchmarks: the bubblewrap backend's exec and cold create, each beside
# running bwrap directly with the same flags. Needs bubblewrap.
#   sh bench/run.sh [go test -bench flags...]
set -eu
cd "$(dirname "$0")/.."
export LANG=en_US.UTF-8
out=$(go test -run '^$' -bench 'ExecTrue|RawBwrapTrue|ColdCreate' -benchtime "${BENCHTIME:-300x}" "$@" ./backends/bubblewrap)
echo "$out"
echo "$out" | awk '
	/^BenchmarkExecTrue/    { exec = $3 }
	/^BenchmarkRawBwrapTrue/ { raw = $3 }
	/^BenchmarkColdCreate/  { cold = $3 }
	END {
		if (exec && raw) printf "exec of true: %.2f ms, raw bwrap: %.2f ms, ratio %.2f (goal: at most 1.5)\n", exec/1e6, raw/1e6, exec/raw
		if (cold && raw) printf "cold create and stop: %.2f ms, %.1fx a raw bwrap run\n", cold/1e6, cold/raw
	}'
