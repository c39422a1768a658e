//go:build linux

package bubblewrap

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"testing/iotest"
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

// TestAgentUpgradeOnAFullDisk: a changed agent is installed even when the
// disk has no room for two copies: the old one goes first.
func TestAgentUpgradeOnAFullDisk(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	tru, err := os.ReadFile("/bin/true") // a small binary stands in for the agent
	if err != nil {
		t.Skipf("no /bin/true to stand in for the agent: %v", err)
	}
	root := t.TempDir()
	// room for one copy and a half
	size := strconv.Itoa(len(tru) * 3 / 2 / 4096 * 4096)
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(root, syscall.MNT_DETACH) })
	src := filepath.Join(t.TempDir(), "agent")
	for i, content := range [][]byte{tru, append(append([]byte(nil), tru...), 1)} {
		if err := os.WriteFile(src, content, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := New(Config{Root: root, Agent: src}); err != nil {
			t.Fatalf("install %d on a disk with room for one: %v", i, err)
		}
		got, err := os.ReadFile(filepath.Join(root, "agent", "sandboxdesk-agent"))
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("install %d: the installed agent is not the new one (%d bytes, %v)", i, len(got), err)
		}
	}
}

// TestAgentPathTakenByAFolder: a folder where the agent goes fails the
// controller's start in one line that names it, and is left as it is.
func TestAgentPathTakenByAFolder(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	root := t.TempDir()
	folder := filepath.Join(root, "agent", "sandboxdesk-agent")
	if err := os.MkdirAll(filepath.Join(folder, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{Root: root, Agent: "/bin/true"})
	if err == nil || err.Error() != "install agent: "+folder+" is a folder where the agent goes; move it away and start again" {
		t.Errorf("a folder where the agent goes: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(folder, "notes")); serr != nil {
		t.Errorf("the folder's contents went: %v", serr)
	}
}

// TestSameBytes: the installed agent is kept only when every byte is the
// same, whatever the buffer's edges, and never when a read fails.
func TestSameBytes(t *testing.T) {
	big := bytes.Repeat([]byte("sandboxdesk agent "), 40_000) // 720,000 bytes: three buffers
	flipped := func(at int) []byte {
		b := bytes.Clone(big)
		b[at] ^= 1
		return b
	}
	cases := []struct {
		name string
		a, b io.Reader
		want bool
	}{
		{"both empty", bytes.NewReader(nil), bytes.NewReader(nil), true},
		{"same", bytes.NewReader(big), bytes.NewReader(big), true},
		{"first byte differs", bytes.NewReader(big), bytes.NewReader(flipped(0)), false},
		{"a byte past the first buffer differs", bytes.NewReader(big), bytes.NewReader(flipped(300_000)), false},
		{"last byte differs", bytes.NewReader(big), bytes.NewReader(flipped(len(big) - 1)), false},
		{"one is shorter by a byte", bytes.NewReader(big), bytes.NewReader(big[:len(big)-1]), false},
		{"one ends at a buffer's edge", bytes.NewReader(big[:256<<10]), bytes.NewReader(big[:256<<10+1]), false},
		{"one is empty", bytes.NewReader(nil), bytes.NewReader(big), false},
		{"a read fails", bytes.NewReader(big), io.MultiReader(bytes.NewReader(big[:1000]), iotest.ErrReader(errors.New("EIO"))), false},
	}
	for _, c := range cases {
		if got := sameBytes(c.a, c.b); got != c.want {
			t.Errorf("%s: sameBytes = %v, want %v", c.name, got, c.want)
		}
	}
}
