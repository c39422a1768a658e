package assets

import (
	"bytes"
	"image/png"
	"testing"

	"fyne.io/fyne/v2"
)

// TestIconsArePNGsWithPixels: the window and the tray take the icons as
// they are, and a StatusNotifier host reads only pixels; an SVG window
// icon costs every start a rasterisation before the window shows.
func TestIconsArePNGsWithPixels(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  fyne.Resource
		side int
	}{
		{"Icon", Icon, 256},
		{"TrayIcon", TrayIcon, 64},
	} {
		img, err := png.Decode(bytes.NewReader(tc.res.Content()))
		if err != nil {
			t.Errorf("%s is not a PNG: %v", tc.name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != tc.side || b.Dy() != tc.side {
			t.Errorf("%s: size %v, want %dx%d", tc.name, b, tc.side, tc.side)
		}
		opaque := 0
		for y := range tc.side {
			for x := range tc.side {
				if _, _, _, a := img.At(x, y).RGBA(); a > 0 {
					opaque++
				}
			}
		}
		if opaque < tc.side*tc.side/10 {
			t.Errorf("%s: only %d of %d pixels drawn: the icon is blank", tc.name, opaque, tc.side*tc.side)
		}
	}
}
