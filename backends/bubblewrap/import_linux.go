//go:build linux

package bubblewrap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
)

// importPrefix names what an import under way owns in the images folder
// (and the "current" it is about to replace in an image's folder); each is
// locked while its import lives, and removed at the next start otherwise.
const importPrefix = ".import-"

// Import unpacks a root file system from a tarball (plain, gzip or xz) as
// image name, and makes it the image new sandboxes of that name get. The
// image's digest is the SHA-256 of the tarball as given. An image that
// cannot be unpacked without writing outside it, or used without
// following a link it holds, is refused and leaves nothing behind.
func (b *Backend) Import(ctx context.Context, name, tarball string) (backends.Image, error) {
	if !imageNameRE().MatchString(name) || name == HostImage {
		return backends.Image{}, fmt.Errorf("image name %q is not valid: use lowercase letters, digits, '.', '_' or '-' (and not %q)", name, HostImage)
	}
	f, err := openTarball(tarball)
	if err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	defer f.Close()
	digest, err := fileDigest(f)
	if err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	if err := os.MkdirAll(b.imagesDir(), 0o711); err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	os.Chmod(b.imagesDir(), 0o711) // passable by the sandbox user, not listable
	base := filepath.Join(b.imagesDir(), name)
	if fi, serr := os.Lstat(filepath.Join(base, strings.TrimPrefix(digest, "sha256:"))); serr == nil && fi.IsDir() {
		err = setCurrent(base, digest) // imported before: it only becomes current again
	} else {
		err = b.importNew(ctx, f, name, digest)
	}
	if err != nil {
		return backends.Image{}, fmt.Errorf("import image %s from %s: %w", name, tarball, err)
	}
	return backends.Image{Name: name, Digest: digest, Description: "imported"}, nil
}

// openTarball opens the tarball as a file: a link in its place (a sandbox
// can plant one in its workspace) or a fifo or device is refused.
func openTarball(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: give the tarball's own path", path)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a file", path)
	}
	return f, nil
}

// importNew unpacks the tarball into a folder of its own in the images
// folder, .import-*, locked while this import lives, and moves it into
// place only when it is complete and checked: a failed or killed import
// leaves nothing under the image's name.
func (b *Backend) importNew(ctx context.Context, r io.ReadSeeker, name, digest string) error {
	tmp, err := os.MkdirTemp(b.imagesDir(), importPrefix)
	if err != nil {
		return err
	}
	lock, err := lockPath(tmp, unix.LOCK_EX)
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	defer lock.Close()
	moved := false
	defer func() {
		if !moved {
			os.RemoveAll(tmp)
		}
	}()
	os.Chmod(tmp, 0o711)
	hexDigest := strings.TrimPrefix(digest, "sha256:")
	if err := os.Mkdir(filepath.Join(tmp, hexDigest), 0o711); err != nil {
		return err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := unpack(ctx, r, filepath.Join(tmp, hexDigest, "rootfs")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "current"), []byte(digest+"\n"), 0o644); err != nil {
		return err
	}
	base := filepath.Join(b.imagesDir(), name)
	if err := os.Rename(tmp, base); err == nil {
		moved = true // a new image: it appears whole, current and all
		return nil
	} else if !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) {
		return err
	}
	// another digest of the image is there: add this one beside it
	err = os.Rename(filepath.Join(tmp, hexDigest), filepath.Join(base, hexDigest))
	if err != nil && !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) {
		return err
	}
	return setCurrent(base, digest)
}

// setCurrent makes digest the one new sandboxes of the image in base get,
// replacing its "current" at once.
func setCurrent(base, digest string) error {
	f, err := os.CreateTemp(base, importPrefix)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, nothing
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	if _, err := f.WriteString(digest + "\n"); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(base, "current"))
}

// lockPath opens path without following a link and locks it (flock).
func lockPath(path string, how int) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(fd, how); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// cleanImports removes what imports killed before their end left in the
// images folder: the .import-* that no live import holds locked.
func (b *Backend) cleanImports() {
	dirs := []string{b.imagesDir()}
	entries, _ := os.ReadDir(b.imagesDir())
	for _, e := range entries {
		if e.IsDir() && imageNameRE().MatchString(e.Name()) {
			dirs = append(dirs, filepath.Join(b.imagesDir(), e.Name()))
		}
	}
	for _, d := range dirs {
		leftovers, _ := filepath.Glob(filepath.Join(d, importPrefix+"*"))
		for _, p := range leftovers {
			lock, err := lockPath(p, unix.LOCK_EX|unix.LOCK_NB)
			if err != nil {
				continue // an import under way, or gone already
			}
			os.RemoveAll(p)
			lock.Close()
		}
	}
}

// decompress recognises gzip and xz by their magic bytes; xz needs the xz
// tool, which Go's standard library has no reader for. finish(true) ends
// the decompression early; finish(false) waits for its end and says how
// it went.
func decompress(ctx context.Context, r io.Reader) (io.Reader, func(abort bool) error, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(6)
	done := func(bool) error { return nil }
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		return zr, done, err
	case bytes.HasPrefix(magic, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		cmd := exec.CommandContext(ctx, "xz", "-dc")
		cmd.Stdin = br
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, fmt.Errorf("an xz tarball needs the xz tool: %w", err)
		}
		waited := false
		return out, func(abort bool) error {
			if waited {
				return nil
			}
			waited = true
			if abort {
				cmd.Process.Kill()
			} else {
				io.Copy(io.Discard, out) // the padding after the end: xz must not block on it
			}
			if err := cmd.Wait(); err != nil && !abort {
				return fmt.Errorf("xz: %s (%w)", strings.TrimSpace(stderr.String()), err)
			}
			return nil
		}, nil
	}
	return br, done, nil
}
