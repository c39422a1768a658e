//go:build linux

package bubblewrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// scanImage reads how the image at root lays out its system folders and
// which entries of its /etc and /opt a sandbox sees. An imported image is
// read through descriptors, never following a link in it, and one the
// backend could use only by following a link is refused: the same check
// as at import, again at every start, since an image folder can be
// changed by hand after its import.
func scanImage(root string, host bool) (imageLayout, error) {
	if host {
		return scanHost(), nil
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return imageLayout{}, fmt.Errorf("read image %s: %w", root, explainPath(err))
	}
	defer unix.Close(fd)
	img, err := readLayout(fd)
	if err != nil {
		return imageLayout{}, fmt.Errorf("image %s: %w", root, err)
	}
	return img, nil
}

// readLayout reads the layout of the image whose root folder is root.
// Its top-level system folders may be links (a merged-/usr system's bin
// -> usr/bin): bwrap recreates those as links inside the sandbox and
// follows nothing on the host. /etc and /opt are bound entry by entry and
// /var/tmp is made before /var is bound, so each of these must be a real
// folder: bwrap would follow a link there on the host.
func readLayout(root int) (imageLayout, error) {
	img := imageLayout{dirs: map[string]bool{}, links: map[string]string{}}
	for _, d := range append(append([]string(nil), systemDirs...), "var", "etc", "opt") {
		kind, err := kindAt(root, d)
		if err != nil {
			return imageLayout{}, fmt.Errorf("read /%s: %w", d, err)
		}
		switch {
		case kind == unix.S_IFLNK && (d == "var" || d == "etc" || d == "opt"):
			target, _ := readlinkAt(root, d)
			return imageLayout{}, fmt.Errorf("its /%s is a symbolic link (to %q); the backend binds into it, so the link would be followed on the host: refusing the image", d, target)
		case kind == unix.S_IFLNK:
			target, err := readlinkAt(root, d)
			if err != nil {
				return imageLayout{}, fmt.Errorf("read /%s: %w", d, err)
			}
			img.links[d] = target
		case kind == unix.S_IFDIR && d != "etc" && d != "opt":
			img.dirs[d] = true
		}
	}
	skip := map[string]bool{}
	for _, f := range generatedEtc {
		skip[f] = true
	}
	var err error
	if img.etc, err = readEntries(root, "etc", skip); err != nil {
		return imageLayout{}, err
	}
	// the agent's own folder, made by bwrap: an image's is hidden
	if img.opt, err = readEntries(root, "opt", map[string]bool{filepath.Base(agentDir): true}); err != nil {
		return imageLayout{}, err
	}
	return img, nil
}

// readEntries lists the entries of the image's folder dir that a sandbox
// sees: its files and folders, to bind, and its links, to recreate.
func readEntries(root int, dir string, skip map[string]bool) ([]etcEntry, error) {
	fd, err := openBeneath(root, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil, nil // none, or a file in its place: the sandbox gets an empty one
	}
	if err != nil {
		return nil, fmt.Errorf("read /%s: %w", dir, explainPath(err))
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read /%s: %w", dir, err)
	}
	var out []etcEntry
	for _, n := range names {
		if skip[n] {
			continue
		}
		kind, err := kindAt(fd, n)
		if err != nil {
			return nil, fmt.Errorf("read /%s/%s: %w", dir, printable(n), err)
		}
		switch kind {
		case unix.S_IFLNK:
			target, err := readlinkAt(fd, n)
			if err != nil {
				return nil, fmt.Errorf("read /%s/%s: %w", dir, printable(n), err)
			}
			out = append(out, etcEntry{name: n, link: target})
		case unix.S_IFREG, unix.S_IFDIR:
			out = append(out, etcEntry{name: n})
		}
		// nothing else: no device node or socket of an image is bound
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// scanHost is the host image's layout: the host's own system folders, and
// the entries of its /etc that programs need (hostEtc). The host is
// trusted: its links are followed.
func scanHost() imageLayout {
	img := imageLayout{dirs: map[string]bool{}, links: map[string]string{}}
	for _, d := range systemDirs {
		p := filepath.Join("/", d)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				img.links[d] = t
			}
		case fi.IsDir():
			img.dirs[d] = true
		}
	}
	for _, n := range hostEtc {
		if _, err := os.Stat(filepath.Join("/etc", n)); err != nil {
			continue // a host symlink to nowhere (resolv.conf without a resolver)
		}
		img.etc = append(img.etc, etcEntry{name: n})
	}
	return img
}
