//go:build linux

package bubblewrap

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// unpacker extracts one tarball into a fresh folder. Every name is
// resolved beneath that folder without following a link, every change is
// made relative to a descriptor of the entry's own folder, and modes are
// set on the entry itself: whatever links a tarball plants first, a later
// entry cannot reach a file outside through them.
type unpacker struct {
	root  int              // the image's root folder
	files map[string]bool  // regular files this import wrote: the only targets for a hard link
	dirs  map[string]int64 // folders, with the mode each gets once everything is in it
}

// unpack extracts a tarball into dir, which it makes, then checks that the
// backend can use the result without following a link (readLayout).
// Names that are absolute or hold "..", device nodes outside /dev and
// hard links to anything but a file unpacked before are refused; setuid,
// setgid and sticky bits of files are dropped.
func unpack(ctx context.Context, r io.Reader, dir string) error {
	src, finish, err := decompress(ctx, r)
	if err != nil {
		return err
	}
	defer finish(true)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	root, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	u := &unpacker{root: root, files: map[string]bool{}, dirs: map[string]int64{".": 0o755}}
	tr := tar.NewReader(src)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) { // an insecure name is refused below, by name
			return fmt.Errorf("not a readable tarball: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		if err := u.entry(h, tr); err != nil {
			return err
		}
	}
	if err := finish(false); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("the tarball is empty")
	}
	if _, err := readLayout(root); err != nil {
		return err
	}
	return u.setDirModes()
}

// entryPath splits an entry's name into the names of the folders to it
// and its own; none for the root ("./").
func entryPath(name string) ([]string, error) {
	if name == "" {
		return nil, errors.New("an entry without a name")
	}
	if strings.HasPrefix(name, "/") {
		return nil, errors.New("an absolute name; an image's names are relative to its root")
	}
	if hasControl(name) {
		return nil, errors.New("a name with a control character, which a terminal would obey when the name is shown")
	}
	var parts []string
	for _, p := range strings.Split(name, "/") {
		switch p {
		case "", ".":
		case "..":
			return nil, errors.New(`a name with ".."; an image's names stay inside it`)
		default:
			parts = append(parts, p)
		}
	}
	return parts, nil
}

func (u *unpacker) entry(h *tar.Header, r io.Reader) error {
	if h.Typeflag == tar.TypeXGlobalHeader {
		return nil // pax defaults for the entries after, already applied by the reader
	}
	parts, err := entryPath(h.Name)
	if err == nil && len(parts) == 0 && h.Typeflag != tar.TypeDir {
		err = errors.New("names the image's root")
	}
	if err == nil && len(parts) > 0 {
		switch h.Typeflag {
		case tar.TypeDir:
			err = u.dir(parts, h.Mode)
		case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse:
			if err = u.fits(h.Size); err == nil {
				err = u.file(parts, h.Mode, r)
			}
		case tar.TypeSymlink:
			if hasControl(h.Linkname) {
				err = errors.New("a link to a name with a control character, which a terminal would obey when the name is shown")
			} else {
				err = u.symlink(parts, h.Linkname)
			}
		case tar.TypeLink:
			err = u.hardlink(parts, h.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			// a root file system tarball often holds /dev/null and the
			// like; a sandbox never sees them (it gets its own /dev)
			if parts[0] != "dev" {
				err = errors.New("a device node; an image may hold those only under /dev, which a sandbox never sees")
			}
		case tar.TypeFifo:
			// not unpacked: nothing in a sandbox needs the image's own
		default:
			err = fmt.Errorf("an entry of kind %q, which an image may not hold", h.Typeflag)
		}
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", h.Name, err)
	}
	return nil
}

// parent opens the folder that holds the entry at parts, making the
// folders on the way that no entry made yet.
func (u *unpacker) parent(parts []string) (int, error) {
	dir := strings.Join(parts[:len(parts)-1], "/")
	fd, err := openBeneath(u.root, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if errors.Is(err, unix.ENOENT) {
		if err := u.mkdirs(parts[:len(parts)-1]); err != nil {
			return -1, err
		}
		fd, err = openBeneath(u.root, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	}
	if err != nil {
		return -1, explainPath(err)
	}
	return fd, nil
}

// mkdirs makes the folders of names that are missing, one at a time from
// the root, each in the folder the step before opened without following
// a link.
func (u *unpacker) mkdirs(names []string) error {
	cur, err := unix.Dup(u.root)
	if err != nil {
		return err
	}
	defer func() { unix.Close(cur) }()
	for i, n := range names {
		path := strings.Join(names[:i+1], "/")
		if err := unix.Mkdirat(cur, n, 0o700); err == nil {
			u.dirs[path] = 0o755
		} else if !errors.Is(err, unix.EEXIST) {
			return err
		}
		next, err := openBeneath(cur, n, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return explainPath(err)
		}
		unix.Close(cur)
		cur = next
	}
	return nil
}

func (u *unpacker) dir(parts []string, mode int64) error {
	pfd, err := u.parent(parts)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	name, base := strings.Join(parts, "/"), parts[len(parts)-1]
	switch kind, err := kindAt(pfd, base); {
	case err != nil:
		return err
	case kind == 0:
		if err := unix.Mkdirat(pfd, base, 0o700); err != nil {
			return err
		}
	case kind != unix.S_IFDIR:
		return fmt.Errorf("a folder in place of an earlier %s; refusing to write through it", kindName(kind))
	}
	u.dirs[name] = mode
	return nil
}

// replace makes room for a new entry where an earlier one of the same
// name may be, as tar does: a file or a link is removed (never followed),
// a folder is not.
func (u *unpacker) replace(pfd int, parts []string) error {
	kind, err := kindAt(pfd, parts[len(parts)-1])
	switch {
	case err != nil:
		return err
	case kind == 0:
		return nil
	case kind == unix.S_IFDIR:
		return errors.New("in place of an earlier folder")
	}
	delete(u.files, strings.Join(parts, "/"))
	return unix.Unlinkat(pfd, parts[len(parts)-1], 0)
}

func (u *unpacker) file(parts []string, mode int64, r io.Reader) error {
	pfd, err := u.parent(parts)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if err := u.replace(pfd, parts); err != nil {
		return err
	}
	name, base := strings.Join(parts, "/"), parts[len(parts)-1]
	fd, err := unix.Openat(pfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Chmod(os.FileMode(mode & 0o777)) // fchmod: no setuid, setgid or sticky bit
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	u.files[name] = true
	return nil
}

func (u *unpacker) symlink(parts []string, target string) error {
	pfd, err := u.parent(parts)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if err := u.replace(pfd, parts); err != nil {
		return err
	}
	return unix.Symlinkat(target, pfd, parts[len(parts)-1])
}

func (u *unpacker) hardlink(parts []string, target string) error {
	tparts, err := entryPath(target)
	if err != nil {
		return fmt.Errorf("hard link to %q: %w", target, err)
	}
	tname, name := strings.Join(tparts, "/"), strings.Join(parts, "/")
	if tname == name {
		return nil // GNU tar's way to store a name given twice: it is there already
	}
	if !u.files[tname] {
		return fmt.Errorf("hard link to %q, which is not a file unpacked before it from this tarball", target)
	}
	tfd, err := openBeneath(u.root, strings.Join(tparts[:len(tparts)-1], "/"), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fmt.Errorf("hard link to %q: %w", target, explainPath(err))
	}
	defer unix.Close(tfd)
	tbase := tparts[len(tparts)-1]
	if kind, err := kindAt(tfd, tbase); err != nil || kind != unix.S_IFREG {
		return fmt.Errorf("hard link to %q, which is not a file", target)
	}
	pfd, err := u.parent(parts)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if err := u.replace(pfd, parts); err != nil {
		return err
	}
	// flags 0: linkat links the entry itself, never what a link names
	if err := unix.Linkat(tfd, tbase, pfd, parts[len(parts)-1], 0); err != nil {
		return err
	}
	u.files[name] = true
	return nil
}

// setDirModes gives each folder its mode once nothing more goes into it,
// through a descriptor of the folder itself. Its owner keeps every right
// (the controller must be able to remove it) and setuid and setgid bits
// are dropped.
func (u *unpacker) setDirModes() error {
	names := make([]string, 0, len(u.dirs))
	for n := range u.dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fd, err := openBeneath(u.root, n, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return fmt.Errorf("folder %q: %w", n, explainPath(err))
		}
		err = unix.Fchmod(fd, uint32(u.dirs[n]&0o1777|0o700))
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("folder %q: %w", n, err)
		}
	}
	return nil
}
