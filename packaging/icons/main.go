// Command icons draws the app's icon from its one source, assets/icon.svg,
// in every size each platform wants: a PNG set (the Linux hicolor theme,
// the tray, the AppStream metadata), a Windows .ico and a macOS .icns.
// `make icons` runs it into assets/icons, where the packages take them;
// a test checks that what is committed there is what the source draws.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
)

// sizes are the square PNGs written: the hicolor theme's sizes, 1024 for
// macOS's Retina 512@2x and store listings.
var sizes = []int{16, 24, 32, 48, 64, 128, 256, 512, 1024}

// icoSizes are the sizes Windows picks from for the taskbar, the Start
// menu, Explorer's views and the installer; it scales 256 down for the
// rest.
var icoSizes = []int{16, 24, 32, 48, 64, 256}

func main() {
	src := flag.String("src", "assets/icon.svg", "the icon's SVG source")
	out := flag.String("out", "assets/icons", "the folder the icons are written to")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "icons:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	svg, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("read the icon source: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("make the icons folder: %w", err)
	}
	pngs := map[int][]byte{}
	imgs := map[int]*image.NRGBA{}
	for _, s := range sizes {
		img, err := render(svg, s)
		if err != nil {
			return err
		}
		b, err := encodePNG(img)
		if err != nil {
			return err
		}
		imgs[s], pngs[s] = img, b
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("sandboxdesk-%d.png", s)), b, 0o644); err != nil {
			return fmt.Errorf("write the %d px icon: %w", s, err)
		}
	}
	var icoImgs []*image.NRGBA
	for _, s := range icoSizes {
		icoImgs = append(icoImgs, imgs[s])
	}
	ico, err := encodeICO(icoImgs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "sandboxdesk.ico"), ico, 0o644); err != nil {
		return fmt.Errorf("write the Windows icon: %w", err)
	}
	icns, err := encodeICNS(pngs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "sandboxdesk.icns"), icns, 0o644); err != nil {
		return fmt.Errorf("write the macOS icon: %w", err)
	}
	return nil
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode a PNG icon: %w", err)
	}
	return buf.Bytes(), nil
}
