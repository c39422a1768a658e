package main

import (
	"bytes"
	"fmt"
	"image"

	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
)

// render draws the SVG source as a square image of side size. Strict:
// an element the rasteriser skips would be missing from every icon.
func render(svg []byte, size int) (*image.NRGBA, error) {
	icon, err := oksvg.ReadIconStream(bytes.NewReader(svg), oksvg.StrictErrorMode)
	if err != nil {
		return nil, fmt.Errorf("read the icon source: %w", err)
	}
	icon.SetTarget(0, 0, float64(size), float64(size))
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	scanner := rasterx.NewScannerGV(size, size, img, img.Bounds())
	icon.Draw(rasterx.NewDasher(size, size, scanner), 1)
	return img, nil
}
