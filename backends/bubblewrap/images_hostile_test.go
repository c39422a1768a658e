//go:build linux

package bubblewrap

import (
	"archive/tar"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
