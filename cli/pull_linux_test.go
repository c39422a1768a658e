//go:build linux

package cli

import (
	"bytes"
	"strings"
	"testing"

	"sandboxdesk/catalogue/cataloguetest"
)

// TestImagesPull runs images catalogue and pull against a controller with
// the test backend and a local catalogue (serveRoot is Linux's).
func TestImagesPull(t *testing.T) {
	url := cataloguetest.One(t, "testvm", bytes.Repeat([]byte("rootfs "), 300_000))
	root := serveRoot(t, "testvm")

	if code, _, errs := runIn(t.Context(), root, nil, "images", "pull", "alpine"); code != ExitUsage || !strings.Contains(errs, "no image catalogue is set") {
		t.Errorf("pull with no catalogue: %d %q", code, errs)
	}
	if code, out, errs := runIn(t.Context(), root, nil, "images", "catalogue", url); code != 0 || out != "image catalogue: "+url+"\n" {
		t.Fatalf("set the catalogue: %d %q %q", code, out, errs)
	}
	if code, out, _ := runIn(t.Context(), root, nil, "images", "catalogue"); code != 0 || !strings.Contains(out, "alpine  testvm   2 MiB  a pulled Linux") {
		t.Errorf("the catalogue shows %d %q", code, out)
	}
	code, out, errs := runIn(t.Context(), root, nil, "images", "pull", "alpine")
	if code != 0 || !strings.HasPrefix(out, "pulled alpine for testvm (sha256:") {
		t.Fatalf("pull: %d %q %q", code, out, errs)
	}
	// stderr is no terminal: the last line only, as a log would keep it
	if !strings.Contains(errs, "pulling alpine [########################] 100% 2 MiB of 2 MiB, ") || strings.Contains(errs, "\r") {
		t.Errorf("pull's progress on stderr: %q", errs)
	}
	if code, out, _ := runIn(t.Context(), root, nil, "images"); code != 0 || !strings.Contains(out, "alpine") {
		t.Errorf("images after the pull: %q", out)
	}
	if code, _, errs := runIn(t.Context(), root, nil, "images", "pull", "nosuch", "--catalogue", url); code != ExitFailure || !strings.Contains(errs, `the catalogue offers no image "nosuch"`) {
		t.Errorf("pull of an image not offered: %d %q", code, errs)
	}
}
