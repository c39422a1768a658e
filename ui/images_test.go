package ui

import (
	"bytes"
	"strings"
	"testing"

	"sandboxdesk/catalogue/cataloguetest"

	"fyne.io/fyne/v2/test"
)

func TestImagesDialogPulls(t *testing.T) {
	r := newRig(t)
	d := newImagesDialog(r.u)
	d.dlg.Show()
	t.Cleanup(d.dlg.Hide)
	d.load(false)
	if got := d.msg.Text; !strings.HasPrefix(got, "No catalogue is set") {
		t.Errorf("with no catalogue the dialog says %q", got)
	}
	url := cataloguetest.One(t, "testvm", bytes.Repeat([]byte("rootfs "), 100_000))
	test.Type(d.url, url)
	test.Tap(d.loadB)
	if got := d.msg.Text; got != "1 images for this computer:" {
		t.Errorf("after Load the dialog says %q", got)
	}
	pull, ok := d.pulls["alpine"]
	if !ok {
		t.Fatalf("no Pull button for alpine: %v", d.pulls)
	}
	test.Tap(pull)
	if r.u.main.status.Text != "Pulling alpine…" {
		t.Errorf("the status line says %q while pulling", r.u.main.status.Text)
	}
	r.eventually("the pull ends in the status line", func() bool { return strings.HasPrefix(r.u.main.status.Text, "Pulled alpine") })
	imgs, err := r.c.Images(t.Context())
	found := false
	for _, img := range imgs {
		found = found || img.Name == "alpine"
	}
	if err != nil || !found {
		t.Errorf("images after the pull: %+v, %v", imgs, err)
	}
	// the catalogue Load set stays for the next time
	d2 := newImagesDialog(r.u)
	d2.load(false)
	if d2.url.Text != url || d2.pulls["alpine"] == nil {
		t.Errorf("a new dialog shows %q with %v", d2.url.Text, d2.pulls)
	}
}
