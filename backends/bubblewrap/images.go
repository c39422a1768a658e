//go:build linux

package bubblewrap

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sandboxdesk/backends"
)

// HostImage is the image made of the host's own /usr (read-only): nothing
// to download, and the default.
const HostImage = "host"

// Imported images live in ROOT/images/NAME/DIGEST/rootfs, with
// ROOT/images/NAME/current naming the digest a new sandbox gets. Older
// digests stay until removed: a sandbox built on one keeps working.

var imageNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

func (b *Backend) imagesDir() string { return filepath.Join(b.root, "images") }

// hostDigest names the host image's content: the host's release, so an
// upgraded host is another image and sandboxes built on the old one are
// rebuilt (their workspaces kept).
func hostDigest() string {
	rel, _ := os.ReadFile("/etc/os-release")
	sum := sha256.Sum256(rel)
	return "host:" + hex.EncodeToString(sum[:8])
}

// Images lists the host image and every imported one.
func (b *Backend) Images(ctx context.Context) ([]backends.Image, error) {
	out := []backends.Image{{Name: HostImage, Digest: hostDigest(), Description: "this machine's tools"}}
	entries, err := os.ReadDir(b.imagesDir())
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, e := range entries {
		cur, err := os.ReadFile(filepath.Join(b.imagesDir(), e.Name(), "current"))
		if err != nil {
			continue
		}
		out = append(out, backends.Image{Name: e.Name(), Digest: strings.TrimSpace(string(cur)), Description: "imported"})
	}
	sort.Slice(out[1:], func(i, j int) bool { return out[i+1].Name < out[j+1].Name })
	return out, nil
}

// imageRoot is the folder an image's sandboxes see as /.
func (b *Backend) imageRoot(img backends.Image) (string, bool, error) {
	if img.Name == HostImage {
		return "/", true, nil
	}
	if !imageNameRE.MatchString(img.Name) || !strings.HasPrefix(img.Digest, "sha256:") {
		return "", false, fmt.Errorf("%w: %q", backends.ErrUnknownImage, img.Name)
	}
	dir := filepath.Join(b.imagesDir(), img.Name, strings.TrimPrefix(img.Digest, "sha256:"), "rootfs")
	if _, err := os.Stat(dir); err != nil {
		return "", false, fmt.Errorf("%w: %s@%s is not in %s (import it again)", backends.ErrUnknownImage, img.Name, img.Digest, b.imagesDir())
	}
	return dir, false, nil
}

// Import unpacks a root file system from a tarball (plain, gzip or xz) as
// image name, and makes it the image new sandboxes of that name get. The
// image's digest is the SHA-256 of the tarball as given.
func (b *Backend) Import(ctx context.Context, name, tarball string) (backends.Image, error) {
	if !imageNameRE.MatchString(name) || name == HostImage {
		return backends.Image{}, fmt.Errorf("image name %q is not valid: use lowercase letters, digits, '.', '_' or '-' (and not %q)", name, HostImage)
	}
	f, err := os.Open(tarball)
	if err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	defer f.Close()
	digest, err := fileDigest(f)
	if err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	base := filepath.Join(b.imagesDir(), name)
	final := filepath.Join(base, strings.TrimPrefix(digest, "sha256:"))
	if _, err := os.Stat(final); err != nil {
		if err := os.MkdirAll(base, 0o711); err != nil {
			return backends.Image{}, fmt.Errorf("import image: %w", err)
		}
		os.Chmod(b.imagesDir(), 0o711)
		tmp, err := os.MkdirTemp(base, ".import-")
		if err != nil {
			return backends.Image{}, fmt.Errorf("import image: %w", err)
		}
		defer os.RemoveAll(tmp)
		os.Chmod(tmp, 0o711)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return backends.Image{}, err
		}
		if err := unpack(ctx, f, filepath.Join(tmp, "rootfs")); err != nil {
			return backends.Image{}, fmt.Errorf("import image %s from %s: %w", name, tarball, err)
		}
		if err := os.Rename(tmp, final); err != nil {
			return backends.Image{}, fmt.Errorf("import image: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "current"), []byte(digest+"\n"), 0o644); err != nil {
		return backends.Image{}, fmt.Errorf("import image: %w", err)
	}
	return backends.Image{Name: name, Digest: digest, Description: "imported"}, nil
}

// RemoveImage deletes an imported image, every digest of it. Sandboxes
// built on it fail to start afterwards until it is imported again.
func (b *Backend) RemoveImage(name string) (bool, error) {
	if !imageNameRE.MatchString(name) || name == HostImage {
		return false, fmt.Errorf("image name %q cannot be removed", name)
	}
	dir := filepath.Join(b.imagesDir(), name)
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return false, nil
	}
	return true, os.RemoveAll(dir)
}

func fileDigest(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// decompress recognises gzip and xz by their magic bytes; xz needs the xz
// tool, which Go's standard library has no reader for.
func decompress(ctx context.Context, r io.Reader) (io.Reader, func() error, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(6)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		return zr, func() error { return nil }, err
	case bytes.HasPrefix(magic, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		cmd := exec.CommandContext(ctx, "xz", "-dc")
		cmd.Stdin = br
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, fmt.Errorf("an xz tarball needs the xz tool: %w", err)
		}
		return out, cmd.Wait, nil
	}
	return br, func() error { return nil }, nil
}

// unpack extracts a tarball into dir without ever writing outside it:
// names that climb out are refused, no entry is written through a
// symlink, device nodes are skipped, and setuid bits are dropped.
func unpack(ctx context.Context, r io.Reader, dir string) error {
	src, wait, err := decompress(ctx, r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(src)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not a readable tarball: %w", err)
		}
		n++
		if err := unpackEntry(dir, h, tr); err != nil {
			return err
		}
	}
	if err := wait(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("the tarball is empty")
	}
	return nil
}

func unpackEntry(dir string, h *tar.Header, r io.Reader) error {
	name := filepath.Clean("/" + h.Name)
	if name == "/" {
		return nil
	}
	target := filepath.Join(dir, name)
	if err := noSymlinkIn(dir, filepath.Dir(target)); err != nil {
		return fmt.Errorf("entry %s: %w", h.Name, err)
	}
	mode := os.FileMode(h.Mode) & 0o777
	switch h.Typeflag {
	case tar.TypeDir:
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
		return os.Chmod(target, mode|0o100) // at least passable by its owner
	case tar.TypeReg:
		os.Remove(target)
		f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	case tar.TypeSymlink:
		os.Remove(target)
		return os.Symlink(h.Linkname, target)
	case tar.TypeLink:
		src := filepath.Join(dir, filepath.Clean("/"+h.Linkname))
		if fi, err := os.Lstat(src); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("entry %s: hard link to %s, which is not a file in the image", h.Name, h.Linkname)
		}
		os.Remove(target)
		return os.Link(src, target)
	}
	return nil // devices, fifos: a sandbox gets its own /dev
}

// noSymlinkIn checks that no folder from dir down to parent is a symlink,
// so a crafted tarball cannot write through one to outside dir.
func noSymlinkIn(dir, parent string) error {
	rel, err := filepath.Rel(dir, parent)
	if err != nil || strings.HasPrefix(rel, "..") {
		return errors.New("outside the image")
	}
	p := dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if os.IsNotExist(err) {
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; refusing to write through it", p)
		}
	}
	return nil
}
