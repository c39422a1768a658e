package testvm

import (
	"context"
	"os"
	"path/filepath"

	"sandboxdesk/backends"
	"sandboxdesk/catalogue"
)

// Pull keeps an image pulled from a catalogue as a real backend would:
// fetch fills its folder, and the image is offered from then on (until
// the backend is opened again), named by its first file's sha256.
func (b *Backend) Pull(ctx context.Context, img catalogue.Image, fetch func(dest string) error) (backends.Image, error) {
	dest := filepath.Join(b.dir, "pulled", img.Name)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return backends.Image{}, err
	}
	if err := fetch(dest); err != nil {
		return backends.Image{}, err
	}
	got := backends.Image{Name: img.Name, Digest: "sha256:" + img.Files[0].SHA256, Description: img.Description}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, have := range b.images {
		if have.Name == img.Name {
			b.images[i] = got
			return got, nil
		}
	}
	b.images = append(b.images, got)
	return got, nil
}
