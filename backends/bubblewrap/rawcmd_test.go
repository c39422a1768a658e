//go:build linux

package bubblewrap

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"sandboxdesk/backends"
)

// benchRawEnv names the file TestWriteRawCommand writes for make bench.
const benchRawEnv = "SANDBOXDESK_BENCH_RAW"

// TestWriteRawCommand writes, for make bench, the command line this
// backend would start for a sandbox, with `true` in place of the agent:
// bwrap run directly with the sandbox's own flags. The sandbox's folders
// are laid out beside the file. It runs only when make bench asks.
func TestWriteRawCommand(t *testing.T) {
	out := os.Getenv(benchRawEnv)
	if out == "" {
		t.Skip("only for make bench (" + benchRawEnv + " names the file to write)")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	root := filepath.Join(filepath.Dir(out), "raw-root")
	agentBin := os.Getenv("SANDBOXDESK_BENCH_AGENT") // the one the sandboxes run
	if agentBin == "" {
		agentBin = os.Args[0]
	}
	be, err := New(Config{Root: root, Agent: agentBin})
	if err != nil {
		t.Fatal(err)
	}
	s := backends.Spec{ID: "sb-bench0000000000", Name: "bench", Root: root, Image: backends.Image{Name: HostImage}, Network: backends.NetworkOn,
		Workspace: root + "/workspaces/bench", StateDir: root + "/sandboxes/sb-bench0000000000"}
	for _, d := range []string{s.Workspace, s.StateDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run, err := be.prepare(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if run != nil && run.workspace != nil {
		// a raw run binds the workspace as it is: the sandbox's uid may use it
		run.workspace.Close()
		run.workspace = nil
		os.Chmod(s.Workspace, 0o777)
	}
	raw := struct {
		Args []string `json:"args"`
		// NewMountNS: run in a mount namespace of its own (a root
		// controller's launcher mounts its alias there)
		NewMountNS bool `json:"newMountNS"`
	}{rawCommand(be, s, run), be.asRoot}
	data, _ := json.Marshal(raw)
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
