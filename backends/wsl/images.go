package wsl

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"sandboxdesk/backends"
)

// imageDir is the folder of root filesystem tarballs: NAME.tar or
// NAME.tar.gz, as `make guest-image` builds them.
type imageDir struct {
	dir string

	mu     sync.Mutex
	digest map[string]cached // by file name
}

type cached struct {
	size   int64
	mod    time.Time
	digest string
}

var suffixes = []string{".tar.gz", ".tar"}

func imageName(file string) (string, bool) {
	for _, s := range suffixes {
		if n, ok := strings.CutSuffix(file, s); ok && validID(n) {
			return n, true
		}
	}
	return "", false
}

func (d *imageDir) list() ([]backends.Image, error) {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return nil, fmt.Errorf("list WSL images: %w", err)
	}
	var out []backends.Image
	for _, e := range ents {
		name, ok := imageName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		dg, err := d.digestOf(e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, backends.Image{Name: name, Digest: dg, Description: "root filesystem " + e.Name()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// digestOf hashes a tarball once per size and modification time.
func (d *imageDir) digestOf(file string) (string, error) {
	path := filepath.Join(d.dir, file)
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("read WSL image: %w", err)
	}
	d.mu.Lock()
	c, ok := d.digest[file]
	d.mu.Unlock()
	if ok && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
		return c.digest, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read WSL image: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read WSL image %s: %w", file, err)
	}
	dg := "sha256:" + hex.EncodeToString(h.Sum(nil))
	d.mu.Lock()
	if d.digest == nil {
		d.digest = map[string]cached{}
	}
	d.digest[file] = cached{st.Size(), st.ModTime(), dg}
	d.mu.Unlock()
	return dg, nil
}

// open opens the uncompressed tar stream of img, refusing one whose
// content changed since the sandbox chose it.
func (d *imageDir) open(img backends.Image) (io.ReadCloser, error) {
	for _, s := range suffixes {
		file := img.Name + s
		if !validID(img.Name) {
			break
		}
		if _, err := os.Stat(filepath.Join(d.dir, file)); err != nil {
			continue
		}
		dg, err := d.digestOf(file)
		if err != nil {
			return nil, err
		}
		if img.Digest != "" && dg != img.Digest {
			return nil, fmt.Errorf("image %s changed since the sandbox was made (%s, now %s): %w", img.Name, img.Digest, dg, backends.ErrUnknownImage)
		}
		f, err := os.Open(filepath.Join(d.dir, file))
		if err != nil {
			return nil, fmt.Errorf("read WSL image: %w", err)
		}
		if s == ".tar" {
			return f, nil
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read WSL image %s: %w", file, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{z, f}, nil
	}
	return nil, fmt.Errorf("image %q: %w", img.Name, backends.ErrUnknownImage)
}
