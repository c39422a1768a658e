package vm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"sandboxdesk/backends"
	"sandboxdesk/catalogue"
)

// Pull keeps a guest image downloaded from a catalogue: fetch fills the
// image's folder (ARCH-NAME, as `make guest-image` names it), and what
// arrived is read and checked as any built image, its files against its
// manifest. An image that is not what the catalogue named is removed.
func (b *Backend) Pull(ctx context.Context, img catalogue.Image, fetch func(dest string) error) (backends.Image, error) {
	if img.Arch != b.cfg.Arch {
		return backends.Image{}, fmt.Errorf("guest image %s is for %s machines, this backend runs %s ones", img.Name, img.Arch, b.cfg.Arch)
	}
	if err := os.MkdirAll(b.cfg.Images, 0o755); err != nil {
		return backends.Image{}, fmt.Errorf("guest images: %w", err)
	}
	dest := filepath.Join(b.cfg.Images, img.Arch+"-"+img.Name)
	if err := fetch(dest); err != nil {
		return backends.Image{}, err
	}
	got, err := loadImage(dest)
	if err == nil && (got.Manifest.Name != img.Name || got.Manifest.Arch != img.Arch) {
		err = fmt.Errorf("guest image %s: its manifest says %s for %s", img.Name, got.Manifest.Name, got.Manifest.Arch)
	}
	if err == nil {
		err = got.Verify()
	}
	if err != nil {
		os.RemoveAll(dest)
		return backends.Image{}, fmt.Errorf("pulled %s, but it is no guest image, so it was deleted: %w", img.Name, err)
	}
	return got.public(), nil
}
