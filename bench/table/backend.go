//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// backendRows takes figures from the bubblewrap backend's own benchmarks,
// in the bench's process tree but without the CLI or the controller: an
// exec of true through a running sandbox's agent, and a cold start and
// stop. Each of rounds runs of the benchmarks is one sample.
func (b *bench) backendRows(rounds int) {
	// an exec is short: 200 of them make a sample steady past the first
	perExec := b.backendBench(rounds, "ExecTrue", "200x")
	b.add(row{Figure: "exec true (backend, in-process)", Unit: "ms", Goal: "< 2 ms"}, perExec, nil)
	cold := b.backendBench(rounds, "ColdCreate", "20x")
	b.add(row{Figure: "cold create + stop (backend)", Unit: "ms", Goal: "< 150 ms"}, cold, nil)
}

// backendBench runs one of the backend's benchmarks rounds times, with
// the static agent the sandboxes run, and returns its times per
// operation.
func (b *bench) backendBench(rounds int, name, benchtime string) sample {
	c := exec.Command("go", "test", "-count", strconv.Itoa(rounds), "-run", "^$", "-bench", "^Benchmark"+name+"$",
		"-benchtime", benchtime, "./backends/bubblewrap")
	c.Env = append(os.Environ(), "SANDBOXDESK_BENCH_AGENT="+filepath.Join(b.bin, "sandboxdesk-agent"))
	out, err := c.CombinedOutput()
	if err != nil {
		fail("backend benchmark %s: %v\n%s", name, err, out)
	}
	return benchSamples(string(out), "ns/op")[name]
}

// benchSamples reads go test -bench output: for each benchmark, its value
// of unit on every line (one per -count), in milliseconds for ns/op.
func benchSamples(out, unit string) map[string]sample {
	s := map[string]sample{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(f[0], "Benchmark"), "-")
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil && f[i+1] == unit {
				if unit == "ns/op" {
					v /= 1e6
				}
				s[name] = append(s[name], v)
			}
		}
	}
	if len(s) == 0 {
		fail("no %s figures in the benchmarks' output:\n%s", unit, out)
	}
	return s
}
