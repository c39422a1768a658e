package bubblewrap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sameAgent reports whether the installed agent at dst already holds
// exactly what src holds (size, then every byte) as a regular file of
// mode 0755. Then it is kept rather than copied again at every start: on a
// small or full disk a fresh copy of a 30 MiB binary is what would fail
// the start. src is read from its start and left there.
func sameAgent(src *os.File, dst string) bool {
	d, err := os.OpenFile(dst, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer d.Close()
	di, err := d.Stat()
	if err != nil || !di.Mode().IsRegular() || di.Mode().Perm() != 0o755 {
		return false
	}
	si, err := src.Stat()
	if err != nil || si.Size() != di.Size() {
		return false
	}
	defer src.Seek(0, io.SeekStart)
	return sameBytes(src, d)
}

// sameBytes reports whether a and b read the same bytes to their ends.
// Compared as read, not hashed: every controller start asks, and a
// SHA-256 of both copies of the agent cost a start some 25 ms of
// processor, which an app opening its window felt.
func sameBytes(a, b io.Reader) bool {
	bufA, bufB := make([]byte, 256<<10), make([]byte, 256<<10)
	for {
		n, errA := io.ReadFull(a, bufA)
		m, errB := io.ReadFull(b, bufB)
		if n != m || !bytes.Equal(bufA[:n], bufB[:m]) {
			return false
		}
		endA, endB := errA == io.EOF || errA == io.ErrUnexpectedEOF, errB == io.EOF || errB == io.ErrUnexpectedEOF
		switch {
		case endA && endB:
			return true
		case endA != endB, errA != nil && !endA, errB != nil && !endB:
			return false
		}
	}
}

// copyAgent copies the agent from in to dst: a file of its own, renamed
// into place, so two controllers starting on one root at once (only one
// will keep it) never see half a binary. On a disk too full for a second
// copy beside the old one (an upgrade on a small disk), the old copy goes
// first: it is of no use once the agent changed.
func copyAgent(in *os.File, dir, dst string) error {
	err := copyOnce(in, dir, dst)
	if errors.Is(err, syscall.ENOSPC) && os.Remove(dst) == nil {
		if _, serr := in.Seek(0, io.SeekStart); serr == nil {
			err = copyOnce(in, dir, dst)
		}
	}
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("install agent: the disk is full: %s has no room for the agent; free some space and start again", dir)
	}
	if fi, serr := os.Lstat(dst); err != nil && serr == nil && fi.IsDir() {
		// never removed here: what a folder holds is not ours to judge
		return fmt.Errorf("install agent: %s is a folder where the agent goes; move it away and start again", dst)
	}
	if err != nil {
		return fmt.Errorf("install agent: %w", err)
	}
	return nil
}

func copyOnce(in *os.File, dir, dst string) error {
	out, err := os.CreateTemp(dir, ".agent-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(out.Name(), dst)
	}
	if err != nil {
		os.Remove(out.Name())
	}
	return err
}
