//go:build linux

package bubblewrap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOpenBeneath(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "f"), nil, 0o644)
	os.Symlink("a", filepath.Join(dir, "link"))
	os.Symlink("f", filepath.Join(dir, "a", "b", "flink"))
	tests := []struct {
		path  string
		flags int
		want  error
	}{
		{"a/b/f", unix.O_RDONLY, nil},
		{".", unix.O_RDONLY | unix.O_DIRECTORY, nil},
		{"a/./b", unix.O_PATH | unix.O_DIRECTORY, nil},
		{"link/b/f", unix.O_RDONLY, unix.ELOOP},
		{"link", unix.O_RDONLY | unix.O_DIRECTORY, unix.ELOOP},
		{"link", unix.O_PATH, unix.ELOOP},
		{"a/b/flink", unix.O_PATH, unix.ELOOP},
		{"a/b/flink", unix.O_RDONLY, unix.ELOOP},
		{"../" + filepath.Base(dir) + "/a", unix.O_PATH, unix.EXDEV},
		{"a/b/f/g", unix.O_RDONLY, unix.ENOTDIR},
		{"a/missing", unix.O_RDONLY, unix.ENOENT},
	}
	was := resolveByWalk.Load()
	defer resolveByWalk.Store(was)
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	for _, walk := range []bool{false, true} {
		resolveByWalk.Store(walk)
		for _, tt := range tests {
			fd, err := openBeneath(root, tt.path, tt.flags)
			if err == nil {
				unix.Close(fd)
			}
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("walk=%v open %q: %v, want %v", walk, tt.path, err, tt.want)
			}
		}
	}
}
