//go:build linux

package bubblewrap

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTarball turns fuzz bytes into a tarball, six bytes an entry (kind;
// one or two names, absolute or not; the names; mode; link): entries of
// every kind, named and linked from a small vocabulary that holds the
// tricks (links out by absolute name and by "..", names through earlier
// links, the folders the backend binds), so the fuzzer combines them
// rather than guessing them.
func fuzzTarball(data []byte, canary string) []byte {
	names := []string{"a", "b", "etc", "..", ".", "opt"}
	links := []string{canary, canary + "/f", "../../canary", "a", "a/f", "/", "..", "etc"}
	kinds := []byte{tar.TypeReg, tar.TypeDir, tar.TypeSymlink, tar.TypeLink, tar.TypeChar, tar.TypeFifo, tar.TypeXGlobalHeader}
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for ; len(data) >= 6; data = data[6:] {
		e := data[:6]
		kind := kinds[int(e[0])%len(kinds)]
		name := names[int(e[2])%len(names)]
		if e[1]&1 != 0 {
			name += "/" + names[int(e[3])%len(names)]
		}
		if e[1]&2 != 0 {
			name = "/" + name
		}
		mode := (int64(e[4])<<5 | int64(e[4])) & 0o7777
		h := &tar.Header{Name: name, Typeflag: kind, Mode: mode, Linkname: links[int(e[5])%len(links)]}
		var body []byte
		if kind == tar.TypeReg {
			body = []byte("pwned")
			h.Size = int64(len(body))
		}
		if kind == tar.TypeXGlobalHeader {
			h = &tar.Header{Typeflag: kind, PAXRecords: map[string]string{"path": name}}
		}
		if w.WriteHeader(h) != nil {
			return nil
		}
		w.Write(body)
	}
	w.Close()
	return buf.Bytes()
}

// FuzzUnpack unpacks generated tarballs beside a canary folder: whatever
// the tarball, nothing outside the import's folder changes, nothing panics,
// and what is unpacked holds no device node and no setuid or setgid bit.
func FuzzUnpack(f *testing.F) {
	for _, seed := range [][]byte{
		{2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0},    // a link a -> canary, then a folder a
		{2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0xff, 0},    // a link a -> canary, then a file a/a
		{2, 0, 0, 0, 0, 0, 3, 0, 1, 0, 0, 4},       // a link a -> canary, then a hard link b -> a/f
		{2, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0xff, 0},    // a link etc -> canary, then a file etc/a
		{0, 1, 3, 0, 0xff, 0},                      // a file ../a
		{0, 2, 0, 0, 0xff, 0},                      // a file /a
		{4, 0, 0, 0, 0xff, 0},                      // a device node
		{0, 0, 0, 0, 0xff, 0, 0x80, 0, 0, 0, 0, 0}, // a setuid file, resolved by the walk
	} {
		f.Add(seed)
	}
	was := resolveByWalk.Load()
	f.Cleanup(func() { resolveByWalk.Store(was) })
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		resolveByWalk.Store(data[0]&0x80 != 0 || !haveOpenat2())
		base := t.TempDir()
		canary := filepath.Join(base, "canary")
		os.MkdirAll(filepath.Join(canary, "sub"), 0o700)
		os.WriteFile(filepath.Join(canary, "f"), []byte("canary"), 0o600)
		imp := filepath.Join(base, "imp")
		os.Mkdir(imp, 0o700)
		tarball := fuzzTarball(data, canary)
		if tarball == nil {
			return
		}
		outside := func() map[string]string {
			s := snapshot(t, base)
			for p := range s {
				if p == imp || strings.HasPrefix(p, imp+"/") {
					delete(s, p)
				}
			}
			return s
		}
		before := outside()
		rootfs := filepath.Join(imp, "rootfs")
		unpack(t.Context(), bytes.NewReader(tarball), rootfs)
		sameSnapshot(t, "beside the import", before, outside())
		filepath.WalkDir(rootfs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err == nil && (fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeDevice|os.ModeCharDevice) != 0) {
				t.Errorf("unpacked %s with mode %v", p, fi.Mode())
			}
			return nil
		})
	})
}
