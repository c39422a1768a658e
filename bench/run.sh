#!/bin/sh
# Benchmarks: the bubblewrap backend's exec and cold create, each beside
# running bwrap directly with the same flags; cold create with and without
# the sandbox's own network (its NAT); and a 100 MiB download from a test
# host (a network namespace of its own, as root) through the NAT beside the
# same download on the host. Needs bubblewrap and slirp4netns.
#   sh bench/run.sh [go test -bench flags...]
set -eu
cd "$(dirname "$0")/.."
export LANG=en_US.UTF-8
out=$(go test -run '^$' -bench 'ExecTrue|RawBwrapTrue|ColdCreate' -benchtime "${BENCHTIME:-300x}" "$@" ./backends/bubblewrap)
# starts with and without the NAT in turn, for the NAT's own cost
nat=$(go test -run '^$' -bench 'NATStartCost' -benchtime "${NAT_BENCHTIME:-50x}" "$@" ./backends/bubblewrap)
# a download takes a while: fewer rounds
net=$(go test -run '^$' -bench 'Download' -benchtime "${NET_BENCHTIME:-10x}" "$@" ./backends/bubblewrap)
out=$(printf '%s\n%s\n%s\n' "$out" "$nat" "$net")
echo "$out"
echo "$out" | awk '
	/^BenchmarkExecTrue/    { exec = $3 }
	/^BenchmarkRawBwrapTrue/ { raw = $3 }
	/^BenchmarkColdCreate-/  { cold = $3 }
	/^BenchmarkColdCreateNetworkOff/ { coldoff = $3 }
	/^BenchmarkNATStartCost/ { for (i = 4; i < NF; i++) { if ($(i+1) == "ms-nat") natms = $i; if ($(i+1) == "ms-start-on") onms = $i; if ($(i+1) == "ms-start-off") offms = $i } }
	/^BenchmarkDownloadHost/ { host = $5 }
	/^BenchmarkDownloadNAT/  { nat = $5 }
	END {
		if (exec && raw) printf "exec of true: %.2f ms, raw bwrap: %.2f ms, ratio %.2f (goal: at most 1.5)\n", exec/1e6, raw/1e6, exec/raw
		if (cold && raw) printf "cold create and stop: %.2f ms, %.1fx a raw bwrap run\n", cold/1e6, cold/raw
		if (cold && coldoff) printf "cold create and stop with the NAT: %.2f ms, without a network: %.2f ms\n", cold/1e6, coldoff/1e6
		if (onms) printf "start, median of starts taken in turn: %.1f ms with the NAT, %.1f ms without (the NAT: %+.1f ms)\n", onms, offms, natms
		if (host && nat) printf "100 MiB download: %.0f MB/s through the NAT, %.0f MB/s on the host (%.0f%%)\n", nat, host, 100*nat/host
		else print "100 MiB download: not measured (needs root for the test host)"
	}'
