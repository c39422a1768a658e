package ui

import (
	"bytes"
	"image/png"
	"testing"

	"sandboxdesk/assets"
)

func TestTrayIconIsAPNGWithPixels(t *testing.T) {
	res, err := trayIcon(assets.Icon)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(res.Content()))
	if err != nil {
		t.Fatalf("a tray host could not read it: %v", err)
	}
	if b := img.Bounds(); b.Dx() != traySize || b.Dy() != traySize {
		t.Errorf("size %v, want %dx%d", b, traySize, traySize)
	}
	opaque := 0
	for y := range traySize {
		for x := range traySize {
			if _, _, _, a := img.At(x, y).RGBA(); a > 0 {
				opaque++
			}
		}
	}
	if opaque < traySize*traySize/10 {
		t.Errorf("only %d of %d pixels drawn: the icon is blank", opaque, traySize*traySize)
	}
}
