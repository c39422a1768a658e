//go:build unix

package vz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// errCannotClone is a clone the file system does not do (not APFS, or
// another volume): the disk is copied instead.
var errCannotClone = errors.New("the file system cannot clone")

// copyDisk makes dst, the sandbox's own root disk, from the image's raw
// disk src: a clone when the file system makes one (APFS: instant, and
// no space used until the guest writes), else a sparse copy. It says
// which it did.
func copyDisk(src, dst string, clone func(src, dst string) error) (string, error) {
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("root disk: %w", err)
	}
	err := clone(src, dst)
	if err == nil {
		return "clone", nil
	}
	if !errors.Is(err, errCannotClone) {
		return "", fmt.Errorf("clone the root disk: %w", err)
	}
	if err := sparseCopy(src, dst); err != nil {
		os.Remove(dst)
		return "", fmt.Errorf("copy the root disk: %w", err)
	}
	return "sparse copy", nil
}

// copyBlock is the unit a sparse copy skips when it is all zeros.
const copyBlock = 1 << 20

// sparseCopy copies src into a new file dst, leaving a hole wherever a
// block is all zeros, so a raw disk that is mostly empty stays mostly
// empty on disk.
func sparseCopy(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	buf := make([]byte, copyBlock)
	zero := make([]byte, copyBlock)
	var size int64
	for {
		n, err := io.ReadFull(in, buf)
		if n > 0 {
			if bytes.Equal(buf[:n], zero[:n]) {
				_, werr := out.Seek(int64(n), io.SeekCurrent)
				if werr != nil {
					return werr
				}
			} else if _, werr := out.Write(buf[:n]); werr != nil {
				return werr
			}
			size += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
	}
	// a disk that ends in a hole still has its full size
	if err := out.Truncate(size); err != nil {
		return err
	}
	return out.Sync()
}
