//go:build unix

package vz

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// rawDisk writes a 64 MiB raw disk with data only at its start, in its
// middle and in its last bytes, as a freshly made ext4 image mostly is.
func rawDisk(t *testing.T) (string, []byte) {
	t.Helper()
	want := make([]byte, 64<<20)
	copy(want, "superblock")
	copy(want[30<<20:], bytes.Repeat([]byte("inode table "), 1000))
	copy(want[len(want)-5:], "tail!")
	src := filepath.Join(t.TempDir(), "root.raw")
	if err := os.WriteFile(src, want, 0o644); err != nil {
		t.Fatal(err)
	}
	return src, want
}

func TestCopyDisk(t *testing.T) {
	src, want := rawDisk(t)
	tests := []struct {
		name    string
		clone   func(src, dst string) error
		how     string
		wantErr bool
	}{
		{"APFS clones", func(s, d string) error { data, _ := os.ReadFile(s); return os.WriteFile(d, data, 0o600) }, "clone", false},
		{"another file system: a sparse copy", func(string, string) error { return fmt.Errorf("clonefile: %w", errCannotClone) }, "sparse copy", false},
		{"a clone that fails otherwise is an error", func(string, string) error { return errors.New("no space left on device") }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "disk.raw")
			// a disk left by an earlier machine is replaced, never reused
			os.WriteFile(dst, []byte("old disk"), 0o600)
			how, err := copyDisk(src, dst, tt.clone)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil || how != tt.how {
				t.Fatalf("%q, %v; want %q", how, err, tt.how)
			}
			got, err := os.ReadFile(dst)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("the copy differs from the image's disk (%d bytes, %v)", len(got), err)
			}
		})
	}
}

// TestSparseCopyLeavesHoles: the zeros of the image's disk take no space
// in the sandbox's copy.
func TestSparseCopyLeavesHoles(t *testing.T) {
	src, want := rawDisk(t)
	dst := filepath.Join(t.TempDir(), "disk.raw")
	if err := sparseCopy(src, dst); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dst, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != int64(len(want)) {
		t.Fatalf("size %d, want %d", st.Size, len(want))
	}
	if used := st.Blocks * 512; used > 8<<20 {
		t.Errorf("the copy uses %d bytes of a 64 MiB disk with three blocks of data: no holes", used)
	}
	// never through a link a sandbox could have left
	link := filepath.Join(t.TempDir(), "disk.raw")
	os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), link)
	if err := sparseCopy(src, link); err == nil {
		t.Error("copied through a link")
	}
}
