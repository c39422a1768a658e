package vm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/catalogue"
	"sandboxdesk/text"
)

// Image is a guest image on disk: a folder with a manifest naming its
// kernel, initrd and, for a full system, a root disk (written by `make
// guest-image`).
type Image struct {
	Dir      string
	Manifest Manifest
	// Digest is the manifest's sha256: it names every file by its own.
	Digest string
}

// Manifest is an image's manifest.json.
type Manifest struct {
	Name     string `json:"name"`
	Arch     string `json:"arch"`
	Flavor   string `json:"flavor"`
	Kernel   File   `json:"kernel"`
	Initrd   File   `json:"initrd"`
	RootDisk *File  `json:"rootDisk,omitempty"`
	Cmdline  string `json:"cmdline"`
}

// File is one file of an image.
type File struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// Path is where an image's file is.
func (img Image) Path(f File) string { return filepath.Join(img.Dir, filepath.Base(f.File)) }

// LoadImages reads every image in dir (one folder each) built for this
// machine's architecture. A folder without a manifest is not an image
// yet (one being built); a broken manifest is reported.
func LoadImages(dir string) ([]Image, error) { return LoadArch(dir, runtime.GOARCH) }

// LoadArch is LoadImages for the images of arch (a Go architecture), which
// a driver may run emulated.
func LoadArch(dir, arch string) ([]Image, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("guest images: %w", err)
	}
	var out []Image
	for _, e := range entries {
		// a hidden folder is a pull under way (package catalogue)
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		img, err := loadImage(filepath.Join(dir, e.Name()))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if img.Manifest.Arch == arch {
			out = append(out, img)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manifest.Name < out[j].Manifest.Name })
	return out, nil
}

func loadImage(dir string) (Image, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return Image{}, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Image{}, fmt.Errorf("guest image %s: broken manifest: %w", text.Printable(dir), err)
	}
	if m.Name == "" || m.Kernel.File == "" || m.Initrd.File == "" {
		return Image{}, fmt.Errorf("guest image %s: the manifest names no kernel or initrd", text.Printable(dir))
	}
	// the names are shown (images, inspect, errors): an escape sequence in
	// one would be obeyed by the person's terminal
	shown := []string{m.Name, m.Arch, m.Flavor, m.Kernel.File, m.Initrd.File}
	if m.RootDisk != nil {
		shown = append(shown, m.RootDisk.File)
	}
	for _, s := range shown {
		if text.Printable(s) != s {
			return Image{}, fmt.Errorf("guest image %s: the manifest's name %q holds a control character", text.Printable(dir), s)
		}
	}
	sum := sha256.Sum256(data)
	return Image{Dir: dir, Manifest: m, Digest: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// public is what the controller sees of an image.
func (img Image) public() backends.Image {
	return backends.Image{Name: img.Manifest.Name, Digest: img.Digest, Description: "Linux VM (" + img.Manifest.Flavor + ", " + img.Manifest.Arch + ")"}
}

// Verify checks the image's files against the sha256s of its manifest, so
// a file changed after the build is never booted.
func (img Image) Verify() error {
	files := []File{img.Manifest.Kernel, img.Manifest.Initrd}
	if img.Manifest.RootDisk != nil {
		files = append(files, *img.Manifest.RootDisk)
	}
	for _, f := range files {
		got, err := catalogue.FileSHA256(img.Path(f))
		if err != nil {
			return fmt.Errorf("guest image %s: %w", img.Manifest.Name, err)
		}
		if got != f.SHA256 {
			return fmt.Errorf("guest image %s: %s does not match its manifest (sha256 %s, want %s); build the image again", img.Manifest.Name, f.File, got, f.SHA256)
		}
	}
	return nil
}
