//go:build linux

package bubblewrap

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tarBlock is one ustar header block, made by hand: archive/tar writes
// no sparse file.
func tarBlock(name string, typ byte, size int) []byte {
	b := make([]byte, 512)
	copy(b, name)
	for off, v := range map[int]string{100: "0000644\x00", 108: "0000000\x00", 116: "0000000\x00", 136: "00000000000\x00"} {
		copy(b[off:], v)
	}
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	b[156] = typ
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func tarPad(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

// paxRecord is "LEN key=value\n", LEN counting itself.
func paxRecord(k, v string) string {
	s := " " + k + "=" + v + "\n"
	n := len(s) + 1
	for len(strconv.Itoa(n))+len(s) != n {
		n++
	}
	return strconv.Itoa(n) + s
}

// sparseBomb is a tarball of a few kilobytes holding a file of size
// bytes that is one hole (PAX sparse format 1.0).
func sparseBomb(name string, size int64) []byte {
	var out []byte
	for _, d := range []string{"usr/", "etc/"} {
		out = append(out, tarBlock(d, '5', 0)...)
	}
	recs := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
		paxRecord("GNU.sparse.name", name) + paxRecord("GNU.sparse.realsize", strconv.FormatInt(size, 10))
	out = append(out, tarBlock("PaxHeaders/bomb", 'x', len(recs))...)
	out = append(out, tarPad([]byte(recs))...)
	out = append(out, tarBlock("GNUSparseFile.0/bomb", '0', 512)...)
	out = append(out, tarPad([]byte("0\n"))...) // a sparse map of no data
	return append(out, make([]byte, 1024)...)
}

// TestHostileImageBomb imports a tarball of a few kilobytes that declares
// a file of a petabyte: it is refused, with one line, before anything is
// written, and leaves nothing in the images folder. Unpacked, its zeros
// would fill the host's disk.
func TestHostileImageBomb(t *testing.T) {
	tarball := filepath.Join(t.TempDir(), "bomb.tar")
	if err := os.WriteFile(tarball, sparseBomb("usr/bomb", 1<<50), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Backend{root: t.TempDir()}
	_, err := b.Import(t.Context(), "bomb", tarball)
	if err == nil || !strings.Contains(err.Error(), "free on the disk") || strings.Contains(err.Error(), "\n") {
		t.Errorf("import: %v, want one line about the free space", err)
	}
	t.Log(err)
	if left, _ := os.ReadDir(b.imagesDir()); len(left) != 0 {
		t.Errorf("a refused import left %v in the images folder", left)
	}
}
