//go:build linux

package bubblewrap

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func writeTarball(t *testing.T, path string, gz bool, entries []entry) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w *tar.Writer
	if gz {
		zw := gzip.NewWriter(f)
		defer zw.Close()
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(f)
	}
	defer w.Close()
	for _, e := range entries {
		mode := e.mode
		if mode == 0 {
			mode = 0o755
		}
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: mode, Linkname: e.link, Size: int64(len(e.body))}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
}

func TestUnpackRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name    string
		entries []entry
		want    string
	}{
		{"write through a symlink", []entry{
			{name: "evil", typ: tar.TypeSymlink, link: outside},
			{name: "evil/pwned", typ: tar.TypeReg, body: "x"},
		}, "symlink"},
		{"hard link to a host file", []entry{
			{name: "passwd", typ: tar.TypeLink, link: "../../../../etc/passwd"},
		}, "not a file in the image"},
		{"empty", nil, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tarball := filepath.Join(t.TempDir(), "x.tar")
			writeTarball(t, tarball, false, tt.entries)
			f, _ := os.Open(tarball)
			defer f.Close()
			err := unpack(t.Context(), f, filepath.Join(t.TempDir(), "rootfs"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("unpack: %v, want an error about %q", err, tt.want)
			}
		})
	}
	// names that climb out land inside instead
	tarball := filepath.Join(t.TempDir(), "climb.tar")
	writeTarball(t, tarball, false, []entry{{name: "../../climbed", typ: tar.TypeReg, body: "x", mode: 0o4755}})
	f, _ := os.Open(tarball)
	defer f.Close()
	dir := filepath.Join(t.TempDir(), "rootfs")
	if err := unpack(t.Context(), f, dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "climbed"))
	if err != nil {
		t.Fatalf("a climbing name was not kept inside: %v", err)
	}
	if fi.Mode()&os.ModeSetuid != 0 {
		t.Error("setuid bit kept")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("unpack wrote outside: %v", entries)
	}
}

func TestImportedImageRuns(t *testing.T) {
	busybox, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Skip("busybox-static is not installed (apt-get install busybox-static): no root file system to import")
	}
	r := newRig(t)
	entries := []entry{
		{name: "bin/", typ: tar.TypeDir}, {name: "etc/", typ: tar.TypeDir},
		{name: "bin/busybox", typ: tar.TypeReg, body: string(busybox)},
		{name: "etc/os-release", typ: tar.TypeReg, body: "ID=tinybox\n", mode: 0o644},
	}
	for _, applet := range []string{"sh", "cat", "ls", "id", "test"} {
		entries = append(entries, entry{name: "bin/" + applet, typ: tar.TypeSymlink, link: "busybox"})
	}
	tarball := filepath.Join(t.TempDir(), "tinybox.tar.gz")
	writeTarball(t, tarball, true, entries)
	img, err := r.b.Import(t.Context(), "tinybox", tarball)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(img.Digest, "sha256:") {
		t.Errorf("digest %q", img.Digest)
	}
	imgs, _ := r.b.Images(t.Context())
	if len(imgs) != 2 || imgs[0].Name != HostImage || imgs[1] != img {
		t.Errorf("images %+v", imgs)
	}
	s := r.spec("tiny")
	s.Image = img
	r.start(s, 128)
	code, out := r.sh(s.ID, "cat /etc/os-release; id -u; test -e /usr/bin/apt && echo host-usr-visible; echo done")
	if code != 0 || out != "ID=tinybox\n1000\ndone\n" {
		t.Errorf("in the imported image: %d %q", code, out)
	}
	if _, err := r.b.Import(t.Context(), "Bad Name", tarball); err == nil {
		t.Error("a bad image name was accepted")
	}
	if _, err := r.b.Import(t.Context(), HostImage, tarball); err == nil {
		t.Error("an import over the host image was accepted")
	}
}
