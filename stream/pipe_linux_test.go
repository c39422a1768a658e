package stream

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGrowPipe: a pipe grows to hold a chunk; a file is left alone.
func TestGrowPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	GrowPipe(pr)
	if n, err := unix.FcntlInt(pw.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || n < ChunkSize {
		t.Errorf("pipe size after GrowPipe: %d, %v; want %d", n, err, ChunkSize)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	GrowPipe(f) // not a pipe: nothing to do, nothing to fail
	if _, err := f.WriteString("still a file"); err != nil {
		t.Error(err)
	}
}
