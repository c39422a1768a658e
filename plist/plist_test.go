package plist

import (
	"reflect"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	d := Dict{
		{"CFBundleIdentifier", "dev.sandboxdesk.app"},
		{"LSUIElement", false},
		{"NSHighResolutionCapable", true},
		{"Build", 7},
		{"ProgramArguments", []string{`/Users/Zoë/Apps/sandbox <desk> & "co".app`, "--flag"}},
		{"Nested", Dict{{"Empty", []any{}}}},
	}
	b, err := Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode of what Encode wrote: %v\n%s", err, b)
	}
	want := map[string]any{
		"CFBundleIdentifier":      "dev.sandboxdesk.app",
		"LSUIElement":             false,
		"NSHighResolutionCapable": true,
		"Build":                   int64(7),
		"ProgramArguments":        []any{`/Users/Zoë/Apps/sandbox <desk> & "co".app`, "--flag"},
		"Nested":                  map[string]any{"Empty": []any{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %#v\nwant %#v", got, want)
	}
	if !strings.Contains(string(b), "&lt;desk&gt; &amp;") {
		t.Errorf("the string is not escaped:\n%s", b)
	}
}

func TestEncodeWritesXcodesLayout(t *testing.T) {
	b, err := Encode(Dict{{"RunAtLoad", true}, {"Label", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := header + "<dict>\n\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>Label</key>\n\t<string>x</string>\n</dict>\n</plist>\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestEncodeRefusesWhatAPlistCannotHold(t *testing.T) {
	if _, err := Encode(Dict{{"Size", 1.5}}); err == nil || !strings.Contains(err.Error(), "Size") {
		t.Errorf("a float encoded, or the error does not name its key: %v", err)
	}
}

func TestHostileDecode(t *testing.T) {
	deep := strings.Repeat("<array>", 100) + strings.Repeat("</array>", 100)
	for _, tc := range []struct{ name, in, want string }{
		{"not XML", "#!/bin/sh\nrm -rf ~", "read property list"},
		{"not a plist", `<html><dict/></html>`, "not <plist>"},
		{"an array at the top", `<plist><array/></plist>`, "not a dictionary"},
		{"two values at the top", `<plist><dict/><dict/></plist>`, "2 values"},
		{"a key with no value", `<plist><dict><key>Label</key></dict></plist>`, "key and no value"},
		{"a value where the key belongs", `<plist><dict><string>a</string><string>b</string></dict></plist>`, "<key> belongs"},
		{"an unknown element", `<plist><dict><key>a</key><script>x</script></dict></plist>`, "unknown element <script>"},
		{"a word for an integer", `<plist><dict><key>a</key><integer>ten</integer></dict></plist>`, `integer "ten"`},
		{"nested 100 deep", `<plist><dict><key>a</key>` + deep + `</dict></plist>`, "deeper than 32"},
		{"an entity bomb", `<!DOCTYPE p [<!ENTITY a "aaaa">]><plist><dict><key>a</key><string>&a;</string></dict></plist>`, "read property list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%q) = %v, want an error saying %q", tc.in, err, tc.want)
			}
		})
	}
}
