//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// networkRows takes the network figures from the bubblewrap backend's
// own benchmarks: starts with and without the sandbox's NAT in turn, and
// a 100 MiB download through the NAT beside the same download on the host
// (a test host in a network namespace of its own: root only).
func (b *bench) networkRows() {
	if _, err := exec.LookPath("slirp4netns"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: slirp4netns is not installed: no network rows")
		return
	}
	out, err := exec.Command("go", "test", "-count=1", "-run", "^$", "-bench", "^Benchmark(NATStartCost|DownloadHost|DownloadNAT)$",
		"-benchtime", "15x", "./backends/bubblewrap").CombinedOutput()
	if err != nil {
		fail("network benchmarks: %v\n%s", err, out)
	}
	metrics := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(f[0], "Benchmark"), "-")
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				metrics[name+" "+f[i+1]] = v
			}
		}
	}
	if on, ok := metrics["NATStartCost ms-start-on"]; ok {
		b.add(row{Figure: "start, network on (backend, 15 in turn)", Unit: "ms", Anchor: "start, network off", Goal: "<= off + the NAT's start"},
			sample{on}, sample{metrics["NATStartCost ms-start-off"]})
	}
	if nat, ok := metrics["DownloadNAT MB/s"]; ok {
		b.add(row{Figure: "100 MiB download through the NAT", Unit: "MB/s", Anchor: "same download on the host"},
			sample{nat}, sample{metrics["DownloadHost MB/s"]})
	} else {
		fmt.Fprintln(os.Stderr, "bench: no download rows (the test host needs root)")
	}
}
