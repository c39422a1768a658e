//go:build linux

package bubblewrap

import (
	"fmt"

	"golang.org/x/sys/unix"

	"sandboxdesk/units"
)

// reserveFloor and reserveShare decide what an import leaves free on the
// file system that holds the images: at least 1 GiB, and a twentieth of
// the file system.
const (
	reserveFloor = 1 << 30
	reserveShare = 20
)

// fits refuses a file the disk cannot take while keeping its reserve. A
// tarball of a few kilobytes can declare a file of a petabyte (a sparse
// entry, or zeros compressed a thousandfold), and unpacking it must not
// fill the host's disk; the size is the one the file will have once
// written, holes included, and each file is measured against what the
// ones before it left.
func (u *unpacker) fits(size int64) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(u.root, &st); err != nil {
		return fmt.Errorf("measure the free space for the image: %w", err)
	}
	bsize := uint64(st.Bsize)
	free := st.Bavail * bsize
	reserve := max(st.Blocks*bsize/reserveShare, reserveFloor)
	if size >= 0 && uint64(size) <= free && free-uint64(size) >= reserve {
		return nil
	}
	return fmt.Errorf("a file of %s, which would leave less than %s free on the disk that holds the images (%s free): refusing the image",
		units.Size(size), units.Size(reserve), units.Size(free))
}
