package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	source    = "../../assets/icon.svg"
	committed = "../../assets/icons"
)

func sourceSVG(t *testing.T) []byte {
	t.Helper()
	svg, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

// TestIconReadsAt16: at 16 px, the tray's size, the box's three faces
// stay apart from each other and from the blue square behind them.
func TestIconReadsAt16(t *testing.T) {
	img, err := render(sourceSVG(t), 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		x, y int
		want color.NRGBA
	}{
		{"the corner outside the rounded square is clear", 0, 0, color.NRGBA{}},
		{"the square is blue at its left edge", 1, 8, color.NRGBA{0x1f, 0x5f, 0xa6, 0xff}},
		{"the top face is white", 8, 5, color.NRGBA{0xff, 0xff, 0xff, 0xff}},
		{"the left face is pale blue", 5, 9, color.NRGBA{0xc9, 0xdc, 0xf3, 0xff}},
		{"the right face is mid blue", 10, 9, color.NRGBA{0x7f, 0xa8, 0xdc, 0xff}},
	} {
		if got := img.NRGBAAt(tc.x, tc.y); !near(got, tc.want, 8) && !(tc.want.A == 0 && got.A < 0x20) {
			t.Errorf("%s: pixel (%d,%d) is %v, want %v", tc.name, tc.x, tc.y, got, tc.want)
		}
	}
}

// TestCommittedIconsMatchSource: the icons the packages take are what
// the source draws (run `make icons` after changing assets/icon.svg).
// Pixels are compared with a small tolerance: a rasteriser's rounding
// may differ by a level between processors.
func TestCommittedIconsMatchSource(t *testing.T) {
	svg := sourceSVG(t)
	want := map[int]*image.NRGBA{}
	for _, s := range sizes {
		img, err := render(svg, s)
		if err != nil {
			t.Fatal(err)
		}
		want[s] = img
		got, err := readPNG(filepath.Join(committed, fmt.Sprintf("sandboxdesk-%d.png", s)))
		if err != nil {
			t.Fatalf("%v (run make icons)", err)
		}
		samePixels(t, fmt.Sprintf("sandboxdesk-%d.png", s), got, img)
	}

	ico, err := os.ReadFile(filepath.Join(committed, "sandboxdesk.ico"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parseICO(ico)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(icoSizes) {
		t.Fatalf("the .ico holds %d images, want %d", len(entries), len(icoSizes))
	}
	for i, img := range entries {
		samePixels(t, fmt.Sprintf("sandboxdesk.ico entry %d", i), img, want[icoSizes[i]])
	}

	icns, err := os.ReadFile(filepath.Join(committed, "sandboxdesk.icns"))
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := parseICNS(icns)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range icnsTypes {
		img, ok := kinds[k.kind]
		if !ok {
			t.Errorf("the .icns has no %s entry", k.kind)
			continue
		}
		samePixels(t, "sandboxdesk.icns "+k.kind, img, want[k.size])
	}
}

// TestImageMagickReadsTheICO: a reader other than ours finds every size.
func TestImageMagickReadsTheICO(t *testing.T) {
	identify, err := exec.LookPath("identify")
	if err != nil {
		t.Skip("ImageMagick's identify is not installed (make deps)")
	}
	out, err := exec.Command(identify, "-format", "%wx%h\n", filepath.Join(committed, "sandboxdesk.ico")).CombinedOutput()
	if err != nil {
		t.Fatalf("identify: %v\n%s", err, out)
	}
	var want []string
	for _, s := range icoSizes {
		want = append(want, fmt.Sprintf("%dx%d", s, s))
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("identify reads %v, want %v", got, want)
	}
}

func TestEncodeICORefusesWhatItCannotHold(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 16, 24), image.Rect(0, 0, 512, 512)} {
		if _, err := encodeICO([]*image.NRGBA{image.NewNRGBA(r)}); err == nil {
			t.Errorf("an .ico of %v was written", r.Size())
		}
	}
}

func near(a, b color.NRGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}

func samePixels(t *testing.T, name string, got image.Image, want *image.NRGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Errorf("%s is %v, want %v", name, got.Bounds().Size(), want.Bounds().Size())
		return
	}
	g := image.NewNRGBA(want.Bounds())
	draw.Draw(g, g.Bounds(), got, got.Bounds().Min, draw.Src)
	for y := 0; y < want.Bounds().Dy(); y++ {
		for x := 0; x < want.Bounds().Dx(); x++ {
			a, b := g.NRGBAAt(x, y), want.NRGBAAt(x, y)
			if a.A == 0 && b.A == 0 {
				continue // a clear pixel's colour is not seen
			}
			if !near(a, b, 2) {
				t.Errorf("%s: pixel (%d,%d) is %v, the source draws %v (run make icons)", name, x, y, a, b)
				return
			}
		}
	}
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}

// parseICO reads back an .ico as the encoder writes it: 32-bit DIBs and
// PNGs.
func parseICO(b []byte) ([]image.Image, error) {
	le := binary.LittleEndian
	if len(b) < 6 || le.Uint16(b[0:]) != 0 || le.Uint16(b[2:]) != 1 {
		return nil, fmt.Errorf("not an .ico")
	}
	var imgs []image.Image
	for i := 0; i < int(le.Uint16(b[4:])); i++ {
		e := b[6+16*i:]
		n := int(e[0])
		if n == 0 {
			n = 256
		}
		size, off := int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if off+size > len(b) {
			return nil, fmt.Errorf("entry %d runs past the file", i)
		}
		data := b[off : off+size]
		if bytes.HasPrefix(data, []byte("\x89PNG")) {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				return nil, err
			}
			imgs = append(imgs, img)
			continue
		}
		if le.Uint32(data) != 40 || int(int32(le.Uint32(data[4:]))) != n || int(int32(le.Uint32(data[8:]))) != 2*n || le.Uint16(data[14:]) != 32 {
			return nil, fmt.Errorf("entry %d: not a %d px 32-bit bitmap", i, n)
		}
		if want := 40 + n*n*4 + (n+31)/32*4*n; size != want {
			return nil, fmt.Errorf("entry %d holds %d bytes, want %d", i, size, want)
		}
		img := image.NewNRGBA(image.Rect(0, 0, n, n))
		px := data[40:]
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				p := px[((n-1-y)*n+x)*4:]
				img.SetNRGBA(x, y, color.NRGBA{p[2], p[1], p[0], p[3]})
			}
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// parseICNS reads back an .icns of PNG entries, by entry type.
func parseICNS(b []byte) (map[string]image.Image, error) {
	be := binary.BigEndian
	if len(b) < 8 || string(b[:4]) != "icns" || int(be.Uint32(b[4:])) != len(b) {
		return nil, fmt.Errorf("not an .icns, or its length is wrong")
	}
	out := map[string]image.Image{}
	for rest := b[8:]; len(rest) > 0; {
		if len(rest) < 8 || int(be.Uint32(rest[4:])) > len(rest) || be.Uint32(rest[4:]) < 8 {
			return nil, fmt.Errorf("an entry runs past the file")
		}
		n := int(be.Uint32(rest[4:]))
		img, err := png.Decode(bytes.NewReader(rest[8:n]))
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", rest[:4], err)
		}
		out[string(rest[:4])] = img
		rest = rest[n:]
	}
	return out, nil
}
