// Package catalogue reads an image catalogue, one JSON file on a server
// listing the images it offers (name, backend, architecture, and files
// with a URL, size and sha256 each), and downloads an image from it into
// an images folder: resumed with Range after a cut, checked against its
// sha256s, and visible there only once every file is complete.
//
// A catalogue and everything downloaded with it is hostile: a name or a
// file name is checked before it names anything on disk, a size bounds
// what is read, and a server that goes silent is given up on. What an
// image is once downloaded (a guest image, a root file system) is not
// this package's business: its backend reads it.
package catalogue

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sync"
)

// Catalogue is a catalogue file.
type Catalogue struct {
	Images []Image `json:"images"`
}

// Image is one image a catalogue offers.
type Image struct {
	Name        string `json:"name"`
	Backend     string `json:"backend"`
	Arch        string `json:"arch"`
	Description string `json:"description,omitempty"`
	Files       []File `json:"files"`
}

// File is one file of an image: where to get it and what it must be.
type File struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Limits on what a catalogue may say.
const (
	// MaxCatalogueBytes bounds the catalogue file itself.
	MaxCatalogueBytes = 4 << 20
	// MaxFileBytes bounds one file: a root disk is a few GiB.
	MaxFileBytes = 64 << 30
	maxFiles     = 16
)

// The checks are compiled on first use, not at start: the command line
// links this package but checks no catalogue in most of its commands.
var (
	// an image's name becomes part of a folder's name: lowercase, digits
	// and '.', '_', '-', starting with a letter or digit (never "." or "..")
	validName = lazyRegexp(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	// a file's name is a plain name in that folder, never hidden (the
	// download's own parts are)
	validFile = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	validWord = lazyRegexp(`^[a-z0-9]{1,32}$`)
	validSum  = lazyRegexp(`^[0-9a-f]{64}$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Parse reads a catalogue fetched from base (relative URLs in it are
// resolved against it) and checks every image in it: one bad entry makes
// the whole catalogue suspect, so it is refused.
func Parse(data []byte, base *url.URL) (Catalogue, error) {
	if len(data) > MaxCatalogueBytes {
		return Catalogue{}, fmt.Errorf("the catalogue is larger than %d bytes", MaxCatalogueBytes)
	}
	var c Catalogue
	if err := json.Unmarshal(data, &c); err != nil {
		return Catalogue{}, fmt.Errorf("the catalogue is not valid JSON: %w", err)
	}
	seen := map[[3]string]bool{}
	for i := range c.Images {
		img := &c.Images[i]
		if err := img.check(base); err != nil {
			return Catalogue{}, fmt.Errorf("catalogue entry %d: %w", i+1, err)
		}
		key := [3]string{img.Backend, img.Arch, img.Name}
		if seen[key] {
			return Catalogue{}, fmt.Errorf("catalogue entry %d: %s (%s, %s) is listed twice", i+1, img.Name, img.Backend, img.Arch)
		}
		seen[key] = true
	}
	return c, nil
}

// check validates an image and makes its URLs absolute.
func (img *Image) check(base *url.URL) error {
	if !validName().MatchString(img.Name) {
		return fmt.Errorf("image name %q is not a plain name (a-z, 0-9, '.', '_', '-')", img.Name)
	}
	if !validWord().MatchString(img.Backend) || !validWord().MatchString(img.Arch) {
		return fmt.Errorf("image %s: backend %q or arch %q is not a plain word", img.Name, img.Backend, img.Arch)
	}
	if len(img.Files) == 0 || len(img.Files) > maxFiles {
		return fmt.Errorf("image %s: %d files (from 1 to %d)", img.Name, len(img.Files), maxFiles)
	}
	names := map[string]bool{}
	for j := range img.Files {
		f := &img.Files[j]
		if !validFile().MatchString(f.Name) {
			return fmt.Errorf("image %s: file name %q is not a plain name", img.Name, f.Name)
		}
		if names[f.Name] {
			return fmt.Errorf("image %s: file %s is listed twice", img.Name, f.Name)
		}
		names[f.Name] = true
		if f.Size <= 0 || f.Size > MaxFileBytes {
			return fmt.Errorf("image %s: file %s has size %d (from 1 to %d)", img.Name, f.Name, f.Size, int64(MaxFileBytes))
		}
		if !validSum().MatchString(f.SHA256) {
			return fmt.Errorf("image %s: file %s has no sha256 (64 lowercase hex digits)", img.Name, f.Name)
		}
		u, err := url.Parse(f.URL)
		if err != nil {
			return fmt.Errorf("image %s: file %s: %w", img.Name, f.Name, err)
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("image %s: file %s: %q is not an http or https URL", img.Name, f.Name, f.URL)
		}
		f.URL = u.String()
	}
	return nil
}

// Find returns the image called name for backend and arch ("" matches
// any backend).
func (c Catalogue) Find(name, backend, arch string) (Image, bool) {
	for _, img := range c.Images {
		if img.Name == name && img.Arch == arch && (backend == "" || img.Backend == backend) {
			return img, true
		}
	}
	return Image{}, false
}

// Size is the sum of the image's file sizes.
func (img Image) Size() int64 {
	var n int64
	for _, f := range img.Files {
		n += f.Size
	}
	return n
}
