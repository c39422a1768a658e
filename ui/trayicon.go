package ui

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"fyne.io/fyne/v2"
	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
)

// traySize is the side of the tray icon in pixels; hosts scale it down.
const traySize = 64

// trayIcon is an SVG icon as a PNG: a StatusNotifier host reads pixels,
// not SVG, so the tray cannot take the app's icon as it is.
func trayIcon(svg fyne.Resource) (fyne.Resource, error) {
	if svg == nil {
		return nil, fmt.Errorf("no app icon")
	}
	icon, err := oksvg.ReadIconStream(bytes.NewReader(svg.Content()))
	if err != nil {
		return nil, fmt.Errorf("read the app icon: %w", err)
	}
	icon.SetTarget(0, 0, traySize, traySize)
	img := image.NewNRGBA(image.Rect(0, 0, traySize, traySize))
	scanner := rasterx.NewScannerGV(traySize, traySize, img, img.Bounds())
	icon.Draw(rasterx.NewDasher(traySize, traySize, scanner), 1)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode the tray icon: %w", err)
	}
	return fyne.NewStaticResource("sandboxdesk-tray.png", buf.Bytes()), nil
}
