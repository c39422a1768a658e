package bubblewrap

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The files the backend writes in a sandbox's folder (bwrap.log,
// bwrap.pid, uid, etc/*) are written as a new file and never through an
// existing name: a symlink or a hard link planted there (by a sandbox
// user, or left from a version whose folders the sandbox owned) can never
// make the controller write, truncate or read another file.

// replaceFile writes data to a new file beside path and renames it over
// path; rename replaces a link itself, never what it points to.
func replaceFile(path string, data []byte, mode os.FileMode) error {
	raw := make([]byte, 6)
	rand.Read(raw)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"-"+hex.EncodeToString(raw))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode) // the umask does not decide what others may read
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createFresh removes whatever path names and creates a new, empty file
// there, failing rather than opening anything that appears in between.
func createFresh(path string, mode os.FileMode) (*os.File, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
}

// readFileNoFollow reads a regular file, refusing a symlink in its place.
func readFileNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f)
}

// readNoFollow reads the regular file name in dir, refusing a symlink.
func readNoFollow(dir *os.File, name string) ([]byte, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return readRegular(f)
}

func readRegular(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", f.Name())
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
