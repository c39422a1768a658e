package ui

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// catalogue serves a catalogue offering "alpine" for testvm here.
func catalogue(t *testing.T) string {
	data := bytes.Repeat([]byte("rootfs "), 100_000)
	h := sha256.Sum256(data)
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogue.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"images": [{"name": "alpine", "backend": "testvm", "arch": "` + runtime.GOARCH + `", "description": "a pulled Linux",
			"files": [{"name": "rootfs.tar", "url": "rootfs.tar", "size": ` + strconv.Itoa(len(data)) + `, "sha256": "` + hex.EncodeToString(h[:]) + `"}]}]}`))
	})
	mux.HandleFunc("/rootfs.tar", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "rootfs.tar", time.Time{}, bytes.NewReader(data))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/catalogue.json"
}

func TestImagesDialogPulls(t *testing.T) {
	r := newRig(t)
	d := newImagesDialog(r.u)
	d.dlg.Show()
	t.Cleanup(d.dlg.Hide)
	d.load(false)
	if got := d.msg.Text; !strings.HasPrefix(got, "No catalogue is set") {
		t.Errorf("with no catalogue the dialog says %q", got)
	}
	url := catalogue(t)
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
