//go:build linux

package bubblewrap

import (
	"errors"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// An image is hostile: it may hold links to anywhere on the host. Every
// path inside one is opened relative to a descriptor of a folder of it,
// one of these ways, never by a host path that the kernel would resolve
// through the image's links.

// resolveByWalk is set where the kernel lacks openat2 (before 5.6, or a
// seccomp filter that refuses it): paths are then opened one name at a
// time with O_NOFOLLOW, which resolves the same way, only with more calls.
var resolveByWalk atomic.Bool

func init() { resolveByWalk.Store(!haveOpenat2()) }

func haveOpenat2() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// openBeneath opens path, relative to the folder dirfd, without following
// a symbolic link anywhere on it, its last name included (ELOOP), and
// without leaving dirfd (EXDEV for ".."). "." or "" is dirfd itself.
func openBeneath(dirfd int, path string, flags int) (int, error) {
	if path == "" {
		path = "."
	}
	flags |= unix.O_CLOEXEC
	if resolveByWalk.Load() {
		return walkBeneath(dirfd, path, flags)
	}
	how := &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for tries := 1; ; tries++ {
		fd, err := unix.Openat2(dirfd, path, how)
		if (err == unix.EAGAIN || err == unix.EINTR) && tries < 16 {
			continue // a rename elsewhere in the tree raced the lookup: try again
		}
		return fd, err
	}
}

// walkBeneath is openBeneath one name at a time: every step is an openat
// of a single name with O_NOFOLLOW from the folder the step before
// opened, so no link is ever followed and ".." is refused outright.
func walkBeneath(dirfd int, path string, flags int) (int, error) {
	var names []string
	for _, n := range strings.Split(path, "/") {
		switch n {
		case "", ".":
		case "..":
			return -1, unix.EXDEV
		default:
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return unix.Openat(dirfd, ".", flags, 0)
	}
	cur := dirfd
	defer func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}()
	for i, n := range names {
		f := unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(names)-1 {
			f = flags | unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(cur, n, f, 0)
		if err == unix.ENOTDIR && isLinkAt(cur, n) {
			err = unix.ELOOP // as openat2 says it
		}
		if err != nil {
			return -1, err
		}
		if i == len(names)-1 && f&unix.O_PATH != 0 && isLinkFd(fd) {
			unix.Close(fd) // O_PATH|O_NOFOLLOW opens the link itself
			return -1, unix.ELOOP
		}
		if cur != dirfd {
			unix.Close(cur)
		}
		cur = fd
	}
	fd := cur
	cur = dirfd
	return fd, nil
}

func isLinkAt(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

func isLinkFd(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// readlinkAt is the target of the link name in the folder dirfd.
func readlinkAt(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// kindAt is the file type (S_IFMT bits) of name in the folder dirfd,
// without following it: 0 when there is nothing.
func kindAt(dirfd int, name string) (uint32, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return 0, nil
	}
	return st.Mode & unix.S_IFMT, err
}

// kindName is how an error names a file kind.
func kindName(kind uint32) string {
	switch kind {
	case unix.S_IFLNK:
		return "symbolic link"
	case unix.S_IFDIR:
		return "folder"
	case unix.S_IFREG:
		return "file"
	}
	return "special file"
}

// explainPath words what openBeneath refused for the person reading it.
func explainPath(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return errors.New("a symbolic link is on its path; refusing to follow it")
	case errors.Is(err, unix.ENOTDIR):
		return errors.New("something on its path is not a folder")
	case errors.Is(err, unix.EXDEV):
		return errors.New("it climbs out of the image")
	}
	return err
}
