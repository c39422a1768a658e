//go:build linux

package vm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sandboxdesk/catalogue"
)

// TestHostilePulledImage: what a catalogue's server sends is offered only
// when it is a guest image of the name and arch the catalogue said, its
// files matching its manifest; anything else is deleted.
func TestHostilePulledImage(t *testing.T) {
	tests := []struct {
		name    string
		arch    string
		write   func(t *testing.T, dest string) // what the download brought
		wantErr string
	}{
		{"a guest image", runtime.GOARCH, func(t *testing.T, dest string) { imageAs(t, "pulled", dest) }, ""},
		{"another architecture's", "s390x", nil, "for s390x machines"},
		{"no manifest", runtime.GOARCH, func(t *testing.T, dest string) { os.MkdirAll(dest, 0o755) }, "no guest image"},
		{"a kernel changed after its manifest", runtime.GOARCH, func(t *testing.T, dest string) {
			imageAs(t, "pulled", dest)
			os.WriteFile(filepath.Join(dest, "vmlinuz"), []byte("another kernel"), 0o644)
		}, "does not match its manifest"},
		{"a manifest naming another image", runtime.GOARCH, func(t *testing.T, dest string) {
			imageAs(t, "other", dest)
		}, "its manifest says other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _, _, images := newFake(t)
			b.cfg.Arch = runtime.GOARCH
			img := catalogue.Image{Name: "pulled", Backend: Name, Arch: tt.arch}
			var dest string
			got, err := b.Pull(context.Background(), img, func(d string) error {
				dest = d
				if tt.write == nil {
					return errors.New("fetched what should not be")
				}
				tt.write(t, d)
				return nil
			})
			if tt.wantErr == "" {
				if err != nil || got.Name != "pulled" {
					t.Fatalf("pull: %+v, %v", got, err)
				}
				if dest != filepath.Join(images, runtime.GOARCH+"-pulled") {
					t.Errorf("pulled into %s", dest)
				}
				imgs, _ := b.Images(context.Background())
				if len(imgs) != 2 {
					t.Errorf("images after the pull: %+v", imgs)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("pull: %v, want an error saying %q", err, tt.wantErr)
			}
			if dest != "" {
				if _, err := os.Stat(dest); !os.IsNotExist(err) {
					t.Errorf("what the pull brought is still there: %v", err)
				}
			}
		})
	}
}

// imageAs writes a guest image called name into dest.
func imageAs(t *testing.T, name, dest string) {
	tmp := t.TempDir()
	writeImage(t, tmp, name)
	if err := os.Rename(filepath.Join(tmp, name), dest); err != nil {
		t.Fatal(err)
	}
}

// a folder still being pulled (hidden) is no image yet, even with its
// manifest already there
func TestPullUnderWayIsNoImage(t *testing.T) {
	images := t.TempDir()
	writeImage(t, images, ".pull-"+runtime.GOARCH+"-tiny")
	if imgs, err := LoadImages(images); err != nil || len(imgs) != 0 {
		t.Errorf("images: %+v, %v", imgs, err)
	}
}
