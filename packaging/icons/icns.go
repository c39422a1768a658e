package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// icnsTypes are the .icns entries macOS reads as PNG, with the pixel side
// each holds: the @2x types reuse the next size up.
var icnsTypes = []struct {
	kind string
	size int
}{
	{"icp4", 16}, {"icp5", 32}, {"icp6", 64}, {"ic07", 128}, {"ic08", 256},
	{"ic09", 512}, {"ic10", 1024}, {"ic11", 32}, {"ic12", 64}, {"ic13", 256}, {"ic14", 512},
}

// encodeICNS packs the PNGs, by pixel side, into one macOS .icns: a
// header ("icns" and the whole length, big-endian) then each entry as its
// type, its length with its own 8-byte header, and its PNG.
func encodeICNS(pngs map[int][]byte) ([]byte, error) {
	var body bytes.Buffer
	for _, t := range icnsTypes {
		p, ok := pngs[t.size]
		if !ok {
			return nil, fmt.Errorf("the .icns entry %s needs a %d px PNG", t.kind, t.size)
		}
		body.WriteString(t.kind)
		binary.Write(&body, binary.BigEndian, uint32(8+len(p)))
		body.Write(p)
	}
	var out bytes.Buffer
	out.WriteString("icns")
	binary.Write(&out, binary.BigEndian, uint32(8+body.Len()))
	out.Write(body.Bytes())
	return out.Bytes(), nil
}
