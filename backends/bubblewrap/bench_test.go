//go:build linux

package bubblewrap

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
)

// rawCommand is the command line the backend would start for a sandbox,
// with `true` in place of the agent: running bwrap directly with the same
// flags.
func rawCommand(be *Backend, s backends.Spec, run *sandboxRun) []string {
	img, _ := scanImage("/", true)
	// network off: the same namespaces, without the NAT's descriptors
	l := layout{Name: s.Name, ImageRoot: "/", HostImage: true, StateDir: s.StateDir, Workspace: s.Workspace,
		Network: backends.NetworkOff, Agent: be.agent, Interp: be.interp, Libs: be.libs}
	cmd := be.command(l, img, run)
	i := len(cmd) - 1
	for cmd[i] != "--" { // the last "--" ends bwrap's own flags
		i--
	}
	return append(slices.Clone(cmd[:i+1]), "/usr/bin/true")
}

// newBenchSandbox lays out one sandbox, not yet started, for a benchmark.
func newBenchSandbox(b *testing.B) (*Backend, backends.Spec, *sandboxRun) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bubblewrap is not installed")
	}
	root := b.TempDir()
	agentBin := os.Getenv("SANDBOXDESK_BENCH_AGENT") // make bench: the static agent the sandboxes run
	if agentBin == "" {
		agentBin = os.Args[0]
	}
	be, err := New(Config{Root: root, Agent: agentBin})
	if err != nil {
		b.Fatal(err)
	}
	// an id of its own: the cgroup is named for it, and another run of the
	// benchmarks on this host must not share it
	id := "sb-bench" + randomHex(5)
	s := backends.Spec{ID: id, Name: "bench", Root: root, Image: backends.Image{Name: HostImage}, Network: backends.NetworkOn,
		Workspace: root + "/workspaces/bench", StateDir: root + "/sandboxes/" + id}
	os.MkdirAll(s.Workspace, 0o700)
	os.MkdirAll(s.StateDir, 0o700)
	run, err := be.prepare(b.Context(), s)
	if err != nil {
		b.Fatal(err)
	}
	if run != nil && run.workspace != nil {
		// a raw run binds the workspace as it is: the sandbox's uid may use it
		run.workspace.Close()
		run.workspace = nil
		os.Chmod(s.Workspace, 0o777)
	}
	return be, s, run
}

// BenchmarkExecTrue: `true` through the agent of a running sandbox.
func BenchmarkExecTrue(b *testing.B) {
	be, s, _ := newBenchSandbox(b)
	if _, err := be.Start(b.Context(), withMemory(s, 512)); err != nil {
		b.Fatal(err)
	}
	defer be.Remove(context.Background(), s.ID)
	for b.Loop() {
		if code, err := be.Exec(b.Context(), s.ID, backends.ExecRequest{Args: []string{"true"}}); err != nil || code != 0 {
			b.Fatal(code, err)
		}
	}
}

// BenchmarkRawBwrapTrue: `true` in a fresh bwrap with the same flags,
// the floor a sandbox runtime built on bwrap could reach per command.
func BenchmarkRawBwrapTrue(b *testing.B) {
	be, s, run := newBenchSandbox(b)
	cmd := rawCommand(be, s, run)
	for b.Loop() {
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir = "/"
		c.Stdin = strings.NewReader("go\n") // through the start gate
		if be.asRoot {
			c.SysProcAttr = rawSysProcAttr()
		}
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkColdCreate: start a sandbox (folders, cgroup, bwrap, its NAT
// up, agent answering) and stop it.
func BenchmarkColdCreate(b *testing.B) {
	be, s, _ := newBenchSandbox(b)
	coldCreate(b, be, s)
}

// BenchmarkColdCreateNetworkOff: the same without a network, so without
// the NAT helper: the difference is what the NAT costs a start.
func BenchmarkColdCreateNetworkOff(b *testing.B) {
	be, s, _ := newBenchSandbox(b)
	s.Network = backends.NetworkOff
	coldCreate(b, be, s)
}

// BenchmarkNATStartCost: cold creates with and without the NAT, taken in
// turn so both see the same load on a shared machine; it reports the
// median of each and their difference, the NAT's cost per start.
func BenchmarkNATStartCost(b *testing.B) {
	be, s, _ := newBenchSandbox(b)
	var on, off []time.Duration
	for b.Loop() {
		for _, n := range []backends.Network{backends.NetworkOn, backends.NetworkOff} {
			s.Network = n
			t0 := time.Now()
			if _, err := be.Start(b.Context(), withMemory(s, 512)); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			if _, err := be.Stop(b.Context(), s.ID, 0); err != nil {
				b.Fatal(err)
			}
			if n == backends.NetworkOn {
				on = append(on, d)
			} else {
				off = append(off, d)
			}
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1e6
	}
	b.ReportMetric(median(on), "ms-start-on")
	b.ReportMetric(median(off), "ms-start-off")
	b.ReportMetric(median(on)-median(off), "ms-nat")
}

func coldCreate(b *testing.B, be *Backend, s backends.Spec) {
	for b.Loop() {
		if _, err := be.Start(b.Context(), withMemory(s, 512)); err != nil {
			b.Fatal(err)
		}
		if _, err := be.Stop(b.Context(), s.ID, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// downloadBytes is the size of one download in the throughput benchmarks.
const downloadBytes = 100 << 20

// BenchmarkDownloadHost: 100 MiB over TCP from the test host (a network
// namespace on a veth pair) to a process on the host.
func BenchmarkDownloadHost(b *testing.B) {
	url := newTestNetHost(b).serveHTTP(b, 8080, downloadBytes)
	addr := strings.TrimPrefix(strings.TrimSuffix(url, "/file"), "http://")
	b.SetBytes(downloadBytes)
	for b.Loop() {
		out, err := exec.Command(os.Args[0], probeCommand, "sink", addr).CombinedOutput()
		if err != nil || !gotAll(string(out)) {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkDownloadNAT: the same download from inside a sandbox with
// network "on", through its NAT.
func BenchmarkDownloadNAT(b *testing.B) {
	url := newTestNetHost(b).serveHTTP(b, 8080, downloadBytes)
	addr := strings.TrimPrefix(strings.TrimSuffix(url, "/file"), "http://")
	be, s, _ := newBenchSandbox(b)
	if _, err := be.Start(b.Context(), withMemory(s, 512)); err != nil {
		b.Fatal(err)
	}
	defer be.Remove(context.Background(), s.ID)
	r := &rig{b: be}
	cmd := []string{"sh", "-c", r.probe("sink", addr)}
	b.SetBytes(downloadBytes)
	for b.Loop() {
		var out bytes.Buffer
		code, err := be.Exec(b.Context(), s.ID, backends.ExecRequest{Args: cmd, Stdout: &out, Stderr: &out})
		if err != nil || code != 0 || !gotAll(out.String()) {
			b.Fatalf("%d %v: %s", code, err, out.String())
		}
	}
}

// gotAll reads the probe's byte count: the whole body and its headers.
func gotAll(out string) bool {
	n, err := strconv.Atoi(strings.TrimSpace(out))
	return err == nil && n > downloadBytes
}

// withMemory gives a spec the memory the controller would have decided.
func withMemory(s backends.Spec, mib int64) backends.Spec { s.MemoryMiB = mib; return s }
