//go:build linux

package bubblewrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAgentCopiedOnlyWhenChanged: the agent is copied into the root once,
// kept as it is while unchanged, and replaced when the binary changes.
func TestAgentCopiedOnlyWhenChanged(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	root := t.TempDir()
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(src, self, 0o755); err != nil {
		t.Fatal(err)
	}
	installed := func() os.FileInfo {
		t.Helper()
		if _, err := New(Config{Root: root, Agent: src}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(root, "agent", "sandboxdesk-agent"))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	first := installed()
	if again := installed(); !os.SameFile(first, again) {
		t.Error("an unchanged agent was copied again")
	}
	// a changed binary (an upgrade) replaces the copy
	if err := os.WriteFile(src, append(self, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	changed := installed()
	if os.SameFile(first, changed) || changed.Size() != int64(len(self)+1) {
		t.Errorf("a changed agent was not copied: same file %v, size %d", os.SameFile(first, changed), changed.Size())
	}
}
