package vz

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestEntitlements: the plist `make build` signs with on macOS grants
// the virtualization entitlement, without which the framework refuses
// every VM.
func TestEntitlements(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "packaging", "darwin", "entitlements.plist"))
	if err != nil {
		t.Fatal(err)
	}
	granted, err := plistBools(data)
	if err != nil {
		t.Fatalf("entitlements.plist is not a plist codesign reads: %v", err)
	}
	if !granted["com.apple.security.virtualization"] {
		t.Errorf("entitlements.plist does not grant com.apple.security.virtualization: %v", granted)
	}
}

// plistBools reads a flat plist dictionary of booleans.
func plistBools(data []byte) (map[string]bool, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	out := map[string]bool{}
	key := ""
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch el.Name.Local {
		case "key":
			if err := d.DecodeElement(&key, &el); err != nil {
				return nil, err
			}
		case "true", "false":
			if key != "" {
				out[key] = el.Name.Local == "true"
				key = ""
			}
		}
	}
}
