//go:build linux

package bubblewrap

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandboxdesk/backends"
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

// TestImportedMergedUsrImageRuns imports a root file system laid out as
// Debian's (merged /usr, "./" names, a /opt, /dev nodes, links in /etc),
// starts a sandbox on it, then imports a second version beside the first.
func TestImportedMergedUsrImageRuns(t *testing.T) {
	busybox, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Skip("busybox-static is not installed (apt-get install busybox-static): no root file system to import")
	}
	r := newRig(t)
	entries := []entry{
		{name: "./", typ: tar.TypeDir},
		{name: "./usr/", typ: tar.TypeDir}, {name: "./usr/bin/", typ: tar.TypeDir}, {name: "./usr/lib/", typ: tar.TypeDir},
		{name: "./usr/bin/busybox", typ: tar.TypeReg, body: string(busybox)},
		{name: "./bin", typ: tar.TypeSymlink, link: "usr/bin"}, {name: "./sbin", typ: tar.TypeSymlink, link: "usr/sbin"},
		{name: "./lib", typ: tar.TypeSymlink, link: "usr/lib"}, {name: "./lib64", typ: tar.TypeSymlink, link: "usr/lib64"},
		{name: "./etc/", typ: tar.TypeDir}, {name: "./etc/os-release", typ: tar.TypeSymlink, link: "../usr/lib/os-release"},
		{name: "./usr/lib/os-release", typ: tar.TypeReg, body: "ID=mergedbox\n", mode: 0o644},
		{name: "./etc/mtab", typ: tar.TypeSymlink, link: "../proc/self/mounts"},
		{name: "./etc/passwd", typ: tar.TypeReg, body: "root:x:0:0::/root:/bin/sh\n", mode: 0o644},
		{name: "./opt/", typ: tar.TypeDir}, {name: "./opt/tool/", typ: tar.TypeDir},
		{name: "./opt/tool/hello", typ: tar.TypeReg, body: "hello from /opt\n", mode: 0o644},
		{name: "./var/", typ: tar.TypeDir}, {name: "./var/tmp/", typ: tar.TypeDir, mode: 0o1777},
		{name: "./dev/", typ: tar.TypeDir}, {name: "./dev/null", typ: tar.TypeChar, mode: 0o666},
		{name: "./root/", typ: tar.TypeDir, mode: 0o700}, {name: "./tmp/", typ: tar.TypeDir, mode: 0o1777},
	}
	for _, applet := range []string{"sh", "cat", "readlink", "id", "ls"} {
		entries = append(entries, entry{name: "./usr/bin/" + applet, typ: tar.TypeLink, link: "./usr/bin/busybox"})
	}
	tarball := filepath.Join(t.TempDir(), "mergedbox.tar")
	writeTarball(t, tarball, false, entries)
	img, err := r.b.Import(t.Context(), "mergedbox", tarball)
	if err != nil {
		t.Fatal(err)
	}
	s := r.spec("merged")
	s.Image = img
	r.start(s, 128)
	code, out := r.sh(s.ID, "cat /etc/os-release /opt/tool/hello; readlink /bin; readlink /etc/mtab; id -un; ls /opt; echo done")
	want := "ID=mergedbox\nhello from /opt\nusr/bin\n../proc/self/mounts\nsandbox\nsandboxdesk\ntool\ndone\n"
	if code != 0 || out != want {
		t.Errorf("in the merged-/usr image: %d %q, want %q", code, out, want)
	}

	// a second version: beside the first, and current
	entries[len(entries)-1].name = "./usr/bin/true"
	second := filepath.Join(t.TempDir(), "mergedbox2.tar")
	writeTarball(t, second, false, entries)
	img2, err := r.b.Import(t.Context(), "mergedbox", second)
	if err != nil {
		t.Fatal(err)
	}
	imgs, _ := r.b.Images(t.Context())
	if img2.Digest == img.Digest || len(imgs) != 2 || imgs[1] != img2 {
		t.Errorf("after a second version: %+v, want %+v", imgs, img2)
	}
	for _, i := range []backends.Image{img, img2} {
		if _, _, err := r.b.imageRoot(i); err != nil {
			t.Errorf("version %s: %v", i.Digest, err)
		}
	}
	if again, err := r.b.Import(t.Context(), "mergedbox", tarball); err != nil || again != img {
		t.Errorf("importing the first version again: %+v %v", again, err)
	}
	if imgs, _ := r.b.Images(t.Context()); imgs[1] != img {
		t.Errorf("the first version is not current again: %+v", imgs)
	}
	left, _ := filepath.Glob(filepath.Join(r.b.imagesDir(), "*", importPrefix+"*"))
	top, _ := filepath.Glob(filepath.Join(r.b.imagesDir(), importPrefix+"*"))
	if len(left)+len(top) != 0 {
		t.Errorf("imports left %v %v", left, top)
	}
}

func TestImportCompressed(t *testing.T) {
	entries := []entry{{name: "etc/", typ: tar.TypeDir}, {name: "etc/os-release", typ: tar.TypeReg, body: "ID=small\n", mode: 0o644}}
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "small.tar"), filepath.Join(dir, "small.tar.gz")
	writeTarball(t, plain, false, entries)
	writeTarball(t, gz, true, entries)
	tests := []struct{ name, file, want string }{
		{"plain", plain, ""},
		{"gzip", gz, ""},
		{"xz", plain + ".xz", ""},
		{"broken xz", filepath.Join(dir, "broken.tar.xz"), "xz: "},
		{"not a tarball", "/etc/hostname", "not a readable tarball"},
		{"empty", filepath.Join(dir, "empty.tar"), "empty"},
		{"a link to a tarball", filepath.Join(dir, "link.tar"), "symbolic link"},
		{"a folder", dir, "not a file"},
	}
	if out, err := exec.Command("xz", "-k", plain).CombinedOutput(); err != nil {
		t.Logf("no xz tarball (xz is not installed? apt-get install xz-utils): %v %s", err, out)
		tests = slices.DeleteFunc(tests, func(tt struct{ name, file, want string }) bool { return strings.Contains(tt.name, "xz") })
	}
	os.WriteFile(filepath.Join(dir, "broken.tar.xz"), []byte("\xfd7zXZ\x00not xz"), 0o644)
	writeTarball(t, filepath.Join(dir, "empty.tar"), false, nil)
	os.Symlink(plain, filepath.Join(dir, "link.tar"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Backend{root: t.TempDir()}
			img, err := b.Import(t.Context(), "small", tt.file)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				rootfs, _, err := b.imageRoot(img)
				if data, _ := os.ReadFile(filepath.Join(rootfs, "etc", "os-release")); err != nil || string(data) != "ID=small\n" {
					t.Errorf("etc/os-release: %q %v", data, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("import: %v, want an error about %q", err, tt.want)
			}
			if left, _ := os.ReadDir(b.imagesDir()); len(left) != 0 {
				t.Errorf("a failed import left %v", left)
			}
		})
	}
}
