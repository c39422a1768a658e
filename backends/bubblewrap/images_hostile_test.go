//go:build linux

package bubblewrap

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// victim is a host folder an image must never reach: a private folder
// with a private file in it.
func victim(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "victim")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot is each file's mode, owner, link count and content under dir,
// dir included, read without following links.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		line := fmt.Sprintf("%v uid=%d gid=%d nlink=%d", fi.Mode(), st.Uid, st.Gid, st.Nlink)
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" sha256=%x", sha256.Sum256(data))
		}
		out[p] = line
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a := after[p]; a != b {
			t.Errorf("%s: %s changed: %s, now %q", what, p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		}
	}
}

// bothResolvers runs f with openat2 and with the O_NOFOLLOW walk that
// stands in for it on kernels without it.
func bothResolvers(t *testing.T, f func(t *testing.T)) {
	was := resolveByWalk.Load()
	t.Cleanup(func() { resolveByWalk.Store(was) })
	for _, walk := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walk], func(t *testing.T) {
			resolveByWalk.Store(walk)
			f(t)
		})
	}
}

// TestHostileTarballs imports tarballs crafted to write outside the image
// or to make a started sandbox follow a link to the host. Each is refused
// with one line, leaves nothing in the images folder and leaves the host
// folder it aims at as it was.
func TestHostileTarballs(t *testing.T) {
	tests := []struct {
		name    string
		entries func(victim string) []entry
		want    string
	}{
		{"a folder entry over a link chmods the host folder it names", func(v string) []entry {
			return []entry{{name: "evil", typ: tar.TypeSymlink, link: v}, {name: "evil/", typ: tar.TypeDir, mode: 0o777}}
		}, "a folder in place of an earlier symbolic link"},
		{"a hard link through a linked folder takes a host file", func(v string) []entry {
			return []entry{{name: "d", typ: tar.TypeSymlink, link: v}, {name: "stolen", typ: tar.TypeLink, link: "d/secret"}}
		}, "not a file unpacked before it"},
		{"a hard link by absolute name", func(v string) []entry {
			return []entry{{name: "stolen", typ: tar.TypeLink, link: v + "/secret"}}
		}, "absolute name"},
		{"a hard link that climbs out", func(v string) []entry {
			return []entry{{name: "stolen", typ: tar.TypeLink, link: "../../../../../../../../.." + v + "/secret"}}
		}, `".."`},
		{"a hard link to a link to a host file", func(v string) []entry {
			return []entry{{name: "l", typ: tar.TypeSymlink, link: v + "/secret"}, {name: "stolen", typ: tar.TypeLink, link: "l"}}
		}, "not a file unpacked before it"},
		{"a hard link to a file since replaced by a link", func(v string) []entry {
			return []entry{
				{name: "f", typ: tar.TypeReg, body: "x"}, {name: "f", typ: tar.TypeSymlink, link: v + "/secret"},
				{name: "stolen", typ: tar.TypeLink, link: "f"},
			}
		}, "not a file unpacked before it"},
		{"a file through a linked folder", func(v string) []entry {
			return []entry{{name: "d", typ: tar.TypeSymlink, link: v}, {name: "d/secret", typ: tar.TypeReg, body: "pwned", mode: 0o666}}
		}, "a symbolic link is on its path"},
		{"a folder through a linked folder", func(v string) []entry {
			return []entry{{name: "d", typ: tar.TypeSymlink, link: v}, {name: "d/sub/", typ: tar.TypeDir, mode: 0o777}}
		}, "a symbolic link is on its path"},
		{"a link through a linked folder", func(v string) []entry {
			return []entry{{name: "d", typ: tar.TypeSymlink, link: v}, {name: "d/planted", typ: tar.TypeSymlink, link: "/"}}
		}, "a symbolic link is on its path"},
		{"/etc is a link to a host folder", func(v string) []entry {
			return []entry{{name: "etc", typ: tar.TypeSymlink, link: v}}
		}, "its /etc is a symbolic link"},
		{"/etc is a link to the host's root", func(v string) []entry {
			return []entry{{name: "usr/", typ: tar.TypeDir}, {name: "etc", typ: tar.TypeSymlink, link: "/"}}
		}, "its /etc is a symbolic link"},
		{"/opt, where the agent goes, is a link", func(v string) []entry {
			return []entry{{name: "opt", typ: tar.TypeSymlink, link: "/oldroot" + v}}
		}, "its /opt is a symbolic link"},
		{"/var, where /var/tmp is made, is a link", func(v string) []entry {
			return []entry{{name: "var", typ: tar.TypeSymlink, link: "/oldroot" + v}}
		}, "its /var is a symbolic link"},
		{"an absolute name", func(v string) []entry {
			return []entry{{name: v + "/secret", typ: tar.TypeReg, body: "pwned", mode: 0o666}}
		}, "absolute name"},
		{"a name that climbs out", func(v string) []entry {
			return []entry{{name: "../../../../../../../../.." + v + "/secret", typ: tar.TypeReg, body: "pwned"}}
		}, `".."`},
		{"a device node", func(v string) []entry {
			return []entry{{name: "etc/", typ: tar.TypeDir}, {name: "etc/mem", typ: tar.TypeChar, mode: 0o666}}
		}, "device node"},
		{"a block device", func(v string) []entry {
			return []entry{{name: "disk", typ: tar.TypeBlock, mode: 0o666}}
		}, "device node"},
	}
	bothResolvers(t, func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v := victim(t)
				before := snapshot(t, v)
				b := &Backend{root: t.TempDir()}
				tarball := filepath.Join(t.TempDir(), "hostile.tar")
				writeTarball(t, tarball, false, tt.entries(v))
				_, err := b.Import(t.Context(), "hostile", tarball)
				if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("import: %v, want one line about %q", err, tt.want)
				}
				t.Log(err)
				sameSnapshot(t, "the host folder", before, snapshot(t, v))
				if left, _ := os.ReadDir(b.imagesDir()); len(left) != 0 {
					t.Errorf("a refused import left %v in the images folder", left)
				}
			})
		}
	})
}

// TestHostileTarballsDefused imports tarballs whose tricks an image may
// carry harmlessly: they are imported, but the trick is gone.
func TestHostileTarballsDefused(t *testing.T) {
	tests := []struct {
		name    string
		entries func(victim string) []entry
		check   func(t *testing.T, rootfs string)
	}{
		{"setuid and setgid bits are dropped", func(string) []entry {
			return []entry{
				{name: "bin/su", typ: tar.TypeReg, body: "x", mode: 0o4755},
				{name: "bin/wall", typ: tar.TypeReg, body: "x", mode: 0o2755},
				{name: "shared/", typ: tar.TypeDir, mode: 0o2775},
			}
		}, func(t *testing.T, rootfs string) {
			for p, want := range map[string]os.FileMode{"bin/su": 0o755, "bin/wall": 0o755, "shared": os.ModeDir | 0o775} {
				if fi, err := os.Lstat(filepath.Join(rootfs, p)); err != nil || fi.Mode() != want {
					t.Errorf("%s: %v %v, want mode %v", p, fi.Mode(), err, want)
				}
			}
		}},
		{"a file over a link to a host file replaces the link", func(v string) []entry {
			return []entry{{name: "f", typ: tar.TypeSymlink, link: v + "/secret"}, {name: "f", typ: tar.TypeReg, body: "image", mode: 0o666}}
		}, func(t *testing.T, rootfs string) {
			if data, err := os.ReadFile(filepath.Join(rootfs, "f")); err != nil || string(data) != "image" {
				t.Errorf("f: %q %v", data, err)
			}
		}},
		{"device nodes under /dev are left out", func(string) []entry {
			return []entry{{name: "dev/", typ: tar.TypeDir}, {name: "dev/null", typ: tar.TypeChar, mode: 0o666}, {name: "dev/initctl", typ: tar.TypeFifo}}
		}, func(t *testing.T, rootfs string) {
			if left, _ := os.ReadDir(filepath.Join(rootfs, "dev")); len(left) != 0 {
				t.Errorf("dev holds %v", left)
			}
		}},
		{"a name given twice, the second as a hard link to itself (GNU tar)", func(v string) []entry {
			return []entry{{name: "l", typ: tar.TypeSymlink, link: v + "/secret"}, {name: "l", typ: tar.TypeLink, link: "l"}}
		}, func(t *testing.T, rootfs string) {
			if target, err := os.Readlink(filepath.Join(rootfs, "l")); err != nil || !strings.HasSuffix(target, "/secret") {
				t.Errorf("l: %q %v", target, err)
			}
		}},
		{"links in /etc stay links, never followed", func(v string) []entry {
			return []entry{{name: "etc/", typ: tar.TypeDir}, {name: "etc/shadow", typ: tar.TypeSymlink, link: v + "/secret"}}
		}, func(t *testing.T, rootfs string) {
			if target, err := os.Readlink(filepath.Join(rootfs, "etc", "shadow")); err != nil || !strings.HasSuffix(target, "/secret") {
				t.Errorf("etc/shadow: %q %v", target, err)
			}
		}},
	}
	bothResolvers(t, func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v := victim(t)
				before := snapshot(t, v)
				b := &Backend{root: t.TempDir()}
				tarball := filepath.Join(t.TempDir(), "tricky.tar")
				writeTarball(t, tarball, false, tt.entries(v))
				img, err := b.Import(t.Context(), "tricky", tarball)
				if err != nil {
					t.Fatal(err)
				}
				rootfs, _, err := b.imageRoot(img)
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, rootfs)
				sameSnapshot(t, "the host folder", before, snapshot(t, v))
			})
		}
	})
}

// TestHostileImageChangedAfterImport changes an imported image's folder
// by hand, as someone with access to the images folder could, so that a
// start would follow a link to the host: the start is refused and the
// host folder stays as it was.
func TestHostileImageChangedAfterImport(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name  string
		plant func(rootfs, victim string) error
		want  string
	}{
		{"/etc becomes a link to a host folder", func(rootfs, v string) error {
			return replaceWithLink(filepath.Join(rootfs, "etc"), v)
		}, "its /etc is a symbolic link"},
		{"/opt becomes a link to a host folder", func(rootfs, v string) error {
			return replaceWithLink(filepath.Join(rootfs, "opt"), "/oldroot"+v)
		}, "its /opt is a symbolic link"},
		{"the root file system becomes a link to the host's /", func(rootfs, v string) error {
			return replaceWithLink(rootfs, "/")
		}, "symbolic link"},
	}
	tarball := filepath.Join(t.TempDir(), "plain.tar")
	writeTarball(t, tarball, false, []entry{
		{name: "etc/", typ: tar.TypeDir}, {name: "etc/os-release", typ: tar.TypeReg, body: "ID=plain\n"},
		{name: "opt/", typ: tar.TypeDir}, {name: "usr/", typ: tar.TypeDir},
	})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := victim(t)
			os.Chmod(v, 0o777) // writable for the sandbox's host user too
			before := snapshot(t, v)
			img, err := r.b.Import(t.Context(), fmt.Sprintf("plain%d", i), tarball)
			if err != nil {
				t.Fatal(err)
			}
			rootfs, _, err := r.b.imageRoot(img)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.plant(rootfs, v); err != nil {
				t.Fatal(err)
			}
			s := r.spec("changed")
			s.Image = img
			_, err = r.b.Start(t.Context(), withMemory(s, 128))
			if err == nil {
				r.b.Remove(t.Context(), s.ID)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("start: %v, want a refusal about %q", err, tt.want)
			}
			sameSnapshot(t, "the host folder", before, snapshot(t, v))
		})
	}
}

func replaceWithLink(path, target string) error {
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	return os.Symlink(target, path)
}

const childImportEnv = "SANDBOXDESK_TEST_IMPORT_ROOT"

// stallingReader serves a tarball's first part, says "ready" and then
// blocks: an import stopped midway, to be killed.
type stallingReader struct {
	*bytes.Reader
	once sync.Once
}

func (s *stallingReader) Read(p []byte) (int, error) {
	if s.Len() == 0 {
		s.once.Do(func() { fmt.Println("ready") })
		select {}
	}
	return s.Reader.Read(p)
}

// runChildImport is an import into root that stops halfway through the
// tarball and waits to be killed.
func runChildImport(root string) int {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range 50 {
		body := bytes.Repeat([]byte("x"), 4096)
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("usr/share/f%d", i), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
		w.Write(body)
	}
	w.Flush() // no end: the tarball goes on, as far as the reader knows
	b := &Backend{root: root}
	os.MkdirAll(b.imagesDir(), 0o711)
	err := b.importNew(context.Background(), &stallingReader{Reader: bytes.NewReader(buf.Bytes())}, "stalled", "sha256:"+strings.Repeat("0", 64))
	fmt.Fprintln(os.Stderr, "the import ended:", err)
	return 1
}

// TestHostileImportKilledLeavesNothing kills a controller in the middle of
// an import: nothing appears under the image's name, and the backend's
// next start removes what the import left, but not what a live import
// holds.
func TestHostileImportKilledLeavesNothing(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childImportEnv+"="+root)
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the importing child said %q", line)
	}
	images := filepath.Join(root, "images")
	underway, _ := filepath.Glob(filepath.Join(images, importPrefix+"*"))
	if len(underway) != 1 {
		t.Fatalf("an import under way holds %v, want one %s* folder", underway, importPrefix)
	}
	if _, err := New(Config{Root: root, Agent: os.Args[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(underway[0]); err != nil {
		t.Fatalf("a backend start removed a live import's folder: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	os.WriteFile(filepath.Join(images, importPrefix+"stray"), nil, 0o600)
	if _, err := New(Config{Root: root, Agent: os.Args[0]}); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(images); len(left) != 0 {
		t.Errorf("after a killed import and a restart, the images folder holds %v", left)
	}
}
