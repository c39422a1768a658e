//go:build linux

package bubblewrap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
)

// HostImage is the image made of the host's own /usr (read-only): nothing
// to download, and the default.
const HostImage = "host"

// Imported images live in ROOT/images/NAME/DIGEST/rootfs, with
// ROOT/images/NAME/current naming the digest a new sandbox gets. Older
// digests stay until removed: a sandbox built on one keeps working.

// compiled on first use, not at start: the command line links this
// package but reads no image in most of its commands
var (
	imageNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })
	digestRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })
)

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
		if !imageNameRE().MatchString(e.Name()) {
			continue // an import under way (.import-*), or not an image
		}
		cur, err := os.ReadFile(filepath.Join(b.imagesDir(), e.Name(), "current"))
		if err != nil {
			continue
		}
		out = append(out, backends.Image{Name: e.Name(), Digest: strings.TrimSpace(string(cur)), Description: "imported"})
	}
	sort.Slice(out[1:], func(i, j int) bool { return out[i+1].Name < out[j+1].Name })
	return out, nil
}

// imageRoot is the folder an image's sandboxes see as /. No link on the
// way from the images folder to it is followed.
func (b *Backend) imageRoot(img backends.Image) (string, bool, error) {
	if img.Name == HostImage {
		return "/", true, nil
	}
	if !imageNameRE().MatchString(img.Name) || !digestRE().MatchString(img.Digest) {
		return "", false, fmt.Errorf("%w: %q", backends.ErrUnknownImage, img.Name)
	}
	rel := filepath.Join(img.Name, strings.TrimPrefix(img.Digest, "sha256:"), "rootfs")
	images, err := unix.Open(b.imagesDir(), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		var fd int
		if fd, err = openBeneath(images, rel, unix.O_PATH|unix.O_DIRECTORY); err == nil {
			unix.Close(fd)
		}
		unix.Close(images)
	}
	if err != nil {
		return "", false, fmt.Errorf("%w: %s@%s is not in %s (import it again): %w", backends.ErrUnknownImage, img.Name, img.Digest, b.imagesDir(), explainPath(err))
	}
	return filepath.Join(b.imagesDir(), rel), false, nil
}

// RemoveImage deletes an imported image, every digest of it. Sandboxes
// built on it fail to start afterwards until it is imported again.
func (b *Backend) RemoveImage(name string) (bool, error) {
	if !imageNameRE().MatchString(name) || name == HostImage {
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
