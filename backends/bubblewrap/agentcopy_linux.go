package bubblewrap

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// sameAgent reports whether the installed agent at dst already holds
// exactly what src holds (size and SHA-256) as a regular file of mode
// 0755. Then it is kept rather than copied again at every start: on a
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
	return bytes.Equal(sum(src), sum(d))
}

func sum(r io.Reader) []byte {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return nil
	}
	return h.Sum(nil)
}
