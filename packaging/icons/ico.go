package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
)

// encodeICO packs square images into one Windows .ico. Sizes under 256
// are stored as 32-bit DIBs, which every reader of the format takes (the
// resource compiler and NSIS among them); 256 is stored as PNG, as
// Windows Vista and later expect.
func encodeICO(imgs []*image.NRGBA) ([]byte, error) {
	var dir, data bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&dir, le, [3]uint16{0, 1, uint16(len(imgs))})
	offset := 6 + 16*len(imgs)
	for _, img := range imgs {
		size := img.Bounds().Dx()
		if size != img.Bounds().Dy() || size < 1 || size > 256 {
			return nil, fmt.Errorf("an .ico holds squares of 1 to 256 px, not %v", img.Bounds().Size())
		}
		var b []byte
		if size == 256 {
			p, err := encodePNG(img)
			if err != nil {
				return nil, err
			}
			b = p
		} else {
			b = dib(img)
		}
		// 0 stands for 256 in the one-byte width and height
		binary.Write(&dir, le, struct {
			W, H, Colors, Reserved uint8
			Planes, Bits           uint16
			Len, Offset            uint32
		}{uint8(size), uint8(size), 0, 0, 1, 32, uint32(len(b)), uint32(offset)})
		data.Write(b)
		offset += len(b)
	}
	return append(dir.Bytes(), data.Bytes()...), nil
}

// dib is an .ico entry's bitmap: a BITMAPINFOHEADER whose height counts
// the colour rows and the mask rows, the BGRA rows bottom up, then the
// 1-bit mask (set where the pixel is fully transparent, for old readers).
func dib(img *image.NRGBA) []byte {
	n := img.Bounds().Dx()
	maskRow := (n + 31) / 32 * 4
	var b bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&b, le, struct {
		Size          uint32
		Width, Height int32
		Planes, Bits  uint16
		Compression   uint32
		ImageSize     uint32
		XPPM, YPPM    int32
		Used, Imp     uint32
	}{40, int32(n), int32(2 * n), 1, 32, 0, uint32(n*n*4 + maskRow*n), 0, 0, 0, 0})
	for y := n - 1; y >= 0; y-- {
		for x := 0; x < n; x++ {
			c := img.NRGBAAt(x, y)
			b.Write([]byte{c.B, c.G, c.R, c.A})
		}
	}
	for y := n - 1; y >= 0; y-- {
		row := make([]byte, maskRow)
		for x := 0; x < n; x++ {
			if img.NRGBAAt(x, y).A == 0 {
				row[x/8] |= 0x80 >> (x % 8)
			}
		}
		b.Write(row)
	}
	return b.Bytes()
}
