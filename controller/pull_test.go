package controller

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandboxdesk/ipc"
)

// catalogueServer serves a catalogue offering "alpine" for testvm on this
// machine, whose one file is data; sum replaces its sha256 when set.
func catalogueServer(t *testing.T, data []byte, sum string) string {
	t.Helper()
	if sum == "" {
		h := sha256.Sum256(data)
		sum = hex.EncodeToString(h[:])
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogue.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"images": [
			{"name": "alpine", "backend": "testvm", "arch": "` + runtime.GOARCH + `", "description": "a pulled Linux",
			 "files": [{"name": "rootfs.tar", "url": "files/rootfs.tar", "size": ` + strconv.Itoa(len(data)) + `, "sha256": "` + sum + `"}]},
			{"name": "alpine", "backend": "testvm", "arch": "s390x",
			 "files": [{"name": "rootfs.tar", "url": "files/other.tar", "size": 1, "sha256": "` + sum + `"}]},
			{"name": "ubuntu", "backend": "wsl", "arch": "` + runtime.GOARCH + `",
			 "files": [{"name": "rootfs.tar", "url": "files/u.tar", "size": 1, "sha256": "` + sum + `"}]}]}`))
	})
	mux.HandleFunc("/files/rootfs.tar", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "rootfs.tar", time.Time{}, bytes.NewReader(data))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/catalogue.json"
}

func TestPullImage(t *testing.T) {
	e := newEnv(t)
	data := bytes.Repeat([]byte("rootfs "), 200_000)
	url := catalogueServer(t, data, "")
	ctx := t.Context()

	if _, err := e.c.PullImage(ctx, ipc.PullImageRequest{Name: "alpine"}); !errors.Is(err, ipc.ErrInvalid) || !strings.Contains(err.Error(), "no image catalogue is set") {
		t.Errorf("pull with no catalogue: %v", err)
	}
	if _, err := e.c.SetCatalogue(ctx, "file:///etc/passwd"); !errors.Is(err, ipc.ErrInvalid) {
		t.Errorf("a file: catalogue was set: %v", err)
	}
	if _, err := e.c.SetCatalogue(ctx, url); err != nil {
		t.Fatal(err)
	}
	cat, err := e.c.Catalogue(ctx)
	if err != nil || cat.URL != url || len(cat.Images) != 1 || cat.Images[0] != (ipc.CatalogueImage{Backend: "testvm", Name: "alpine", Description: "a pulled Linux", Size: int64(len(data))}) {
		t.Errorf("the catalogue offers %+v, %v; want alpine for testvm alone (this arch, a backend here)", cat, err)
	}

	events, cancel := e.c.Subscribe()
	defer cancel()
	img, err := e.c.PullImage(ctx, ipc.PullImageRequest{Name: "alpine"})
	if err != nil {
		t.Fatal(err)
	}
	if img.Backend != "testvm" || img.Name != "alpine" || !strings.HasPrefix(img.Digest, "sha256:") {
		t.Errorf("pulled %+v", img)
	}
	imgs, _ := e.c.Images(ctx)
	found := false
	for _, i := range imgs {
		found = found || i.Name == "alpine"
	}
	if !found {
		t.Errorf("the pulled image is not listed: %+v", imgs)
	}
	var last *ipc.Download
	for done := false; !done; {
		ev := <-events
		switch {
		case ev.Kind == ipc.EventProgress && ev.Image == "alpine":
			if ev.Download == nil || (last != nil && ev.Download.Bytes < last.Bytes) || ev.Download.Total != int64(len(data)) {
				t.Fatalf("progress %+v after %+v", ev.Download, last)
			}
			last = ev.Download
		case ev.Kind == ipc.EventNotice && ev.Message == "images changed":
			done = true
		}
	}
	if last == nil || last.Bytes != int64(len(data)) {
		t.Errorf("the last progress event: %+v, want all %d bytes", last, len(data))
	}

	if _, err := e.c.PullImage(ctx, ipc.PullImageRequest{Name: "debian"}); !errors.Is(err, ipc.ErrNotFound) {
		t.Errorf("pull of an image the catalogue lacks: %v", err)
	}
	if _, err := e.c.PullImage(ctx, ipc.PullImageRequest{Name: "ubuntu"}); !errors.Is(err, ipc.ErrUnavailable) || !strings.Contains(err.Error(), "wsl") {
		t.Errorf("pull for a backend this controller lacks: %v", err)
	}
}

func TestPullImageWrongChecksum(t *testing.T) {
	e := newEnv(t)
	url := catalogueServer(t, []byte("not what the catalogue says"), strings.Repeat("0", 64))
	_, err := e.c.PullImage(t.Context(), ipc.PullImageRequest{Name: "alpine", Catalogue: url})
	if !errors.Is(err, ipc.ErrInvalid) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("pull of a file with a wrong sha256: %v", err)
	}
	if imgs, _ := e.c.Images(t.Context()); len(imgs) != 2 {
		t.Errorf("images after a failed pull: %+v", imgs)
	}
}
