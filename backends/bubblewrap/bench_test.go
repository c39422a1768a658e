//go:build linux

package bubblewrap

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"sandboxdesk/backends"
)

// rawCommand is the command line the backend would start for a sandbox,
// with `true` in place of the agent: running bwrap directly with the same
// flags.
func rawCommand(be *Backend, s backends.Spec, run *sandboxRun) []string {
	img, _ := scanImage("/", true)
	l := layout{Name: s.Name, ImageRoot: "/", HostImage: true, StateDir: s.StateDir, Workspace: s.Workspace,
		Network: true, Agent: be.agent, Interp: be.interp, Libs: be.libs}
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
	be, err := New(Config{Root: root, Agent: os.Args[0]})
	if err != nil {
		b.Fatal(err)
	}
	s := backends.Spec{ID: "sb-bench0000000000", Name: "bench", Root: root, Image: backends.Image{Name: HostImage}, Network: true,
		Workspace: root + "/workspaces/bench", StateDir: root + "/sandboxes/sb-bench0000000000"}
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
	if _, err := be.Start(b.Context(), s, 512); err != nil {
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
		if be.asRoot {
			c.SysProcAttr = rawSysProcAttr()
		}
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkColdCreate: start a sandbox (folders, cgroup, bwrap, agent
// answering) and stop it.
func BenchmarkColdCreate(b *testing.B) {
	be, s, _ := newBenchSandbox(b)
	for b.Loop() {
		if _, err := be.Start(b.Context(), s, 512); err != nil {
			b.Fatal(err)
		}
		if _, err := be.Stop(b.Context(), s.ID, 0); err != nil {
			b.Fatal(err)
		}
	}
}
