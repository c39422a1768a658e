package catalogue

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

const sum = "0000000000000000000000000000000000000000000000000000000000000000"

// entry is a catalogue with one image, its fields replaced where given.
func entry(name, backend, arch, file, fileURL string, size int64, sha string) string {
	return `{"images": [{"name": "` + name + `", "backend": "` + backend + `", "arch": "` + arch + `",
		"files": [{"name": "` + file + `", "url": "` + fileURL + `", "size": ` + strconv.FormatInt(size, 10) + `, "sha256": "` + sha + `"}]}]}`
}

func TestHostileCatalogueRefused(t *testing.T) {
	base, _ := url.Parse("https://images.example/catalogue.json")
	tests := []struct {
		name    string
		json    string
		wantErr string // "" when it is fine
	}{
		{"a good one", entry("tiny", "vm", "amd64", "vmlinuz", "tiny/vmlinuz", 100, sum), ""},
		{"an absolute URL", entry("tiny", "vm", "amd64", "vmlinuz", "http://mirror.example/vmlinuz", 100, sum), ""},
		{"a name that climbs", entry("../tiny", "vm", "amd64", "vmlinuz", "x", 100, sum), "not a plain name"},
		{"a hidden name", entry(".pull-tiny", "vm", "amd64", "vmlinuz", "x", 100, sum), "not a plain name"},
		{"a name with a slash", entry("a/b", "vm", "amd64", "vmlinuz", "x", 100, sum), "not a plain name"},
		{"a name with a newline", entry(`tiny\n`, "vm", "amd64", "vmlinuz", "x", 100, sum), "not a plain name"},
		{"a file that climbs", entry("tiny", "vm", "amd64", "../../etc/passwd", "x", 100, sum), "not a plain name"},
		{"a file in a folder", entry("tiny", "vm", "amd64", "boot/vmlinuz", "x", 100, sum), "not a plain name"},
		{"a hidden file", entry("tiny", "vm", "amd64", ".part", "x", 100, sum), "not a plain name"},
		{"an arch with a slash", entry("tiny", "vm", "amd/64", "vmlinuz", "x", 100, sum), "not a plain word"},
		{"a file: URL", entry("tiny", "vm", "amd64", "vmlinuz", "file:///etc/shadow", 100, sum), "not an http or https URL"},
		{"no size", entry("tiny", "vm", "amd64", "vmlinuz", "x", 0, sum), "has size 0"},
		{"a negative size", entry("tiny", "vm", "amd64", "vmlinuz", "x", -5, sum), "has size -5"},
		{"more than a disk", entry("tiny", "vm", "amd64", "vmlinuz", "x", MaxFileBytes+1, sum), "has size"},
		{"no sha256", entry("tiny", "vm", "amd64", "vmlinuz", "x", 100, ""), "no sha256"},
		{"an uppercase sha256", entry("tiny", "vm", "amd64", "vmlinuz", "x", 100, strings.ToUpper(strings.Repeat("ab", 32))), "no sha256"},
		{"a file twice", `{"images": [{"name": "tiny", "backend": "vm", "arch": "amd64", "files": [
			{"name": "a", "url": "a", "size": 1, "sha256": "` + sum + `"}, {"name": "a", "url": "b", "size": 1, "sha256": "` + sum + `"}]}]}`, "listed twice"},
		{"an image twice", `{"images": [
			{"name": "tiny", "backend": "vm", "arch": "amd64", "files": [{"name": "a", "url": "a", "size": 1, "sha256": "` + sum + `"}]},
			{"name": "tiny", "backend": "vm", "arch": "amd64", "files": [{"name": "b", "url": "b", "size": 1, "sha256": "` + sum + `"}]}]}`, "listed twice"},
		{"not JSON", `{"images": [`, "not valid JSON"},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(tt.json), base)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.wantErr)
		case tt.wantErr == "":
			if u := c.Images[0].Files[0].URL; !strings.HasPrefix(u, "http") {
				t.Errorf("%s: URL %q was not made absolute", tt.name, u)
			}
		}
	}
}

func TestFind(t *testing.T) {
	c := Catalogue{Images: []Image{{Name: "tiny", Backend: "vm", Arch: "arm64"}, {Name: "tiny", Backend: "vm", Arch: "amd64"}}}
	if img, ok := c.Find("tiny", "", "amd64"); !ok || img.Arch != "amd64" {
		t.Errorf("tiny for amd64: %+v, %v", img, ok)
	}
	if _, ok := c.Find("tiny", "bubblewrap", "amd64"); ok {
		t.Error("found a vm image for bubblewrap")
	}
	if _, ok := c.Find("debian", "", "amd64"); ok {
		t.Error("found an image the catalogue does not list")
	}
}
