// Package cataloguetest serves image catalogues to tests of the packages
// that pull from one (the CLI, the UI).
package cataloguetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// One serves, until the test ends, a catalogue offering one image,
// "alpine" ("a pulled Linux") for backend on this machine's architecture,
// whose one file rootfs.tar holds data; it returns the catalogue's URL.
// The file is served with Range, so pulls can resume.
func One(t testing.TB, backend string, data []byte) string {
	t.Helper()
	h := sha256.Sum256(data)
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogue.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"images": [{"name": "alpine", "backend": "` + backend + `", "arch": "` + runtime.GOARCH + `", "description": "a pulled Linux",
			"files": [{"name": "rootfs.tar", "url": "rootfs.tar", "size": ` + strconv.Itoa(len(data)) + `, "sha256": "` + hex.EncodeToString(h[:]) + `"}]}]}`))
	})
	mux.HandleFunc("/rootfs.tar", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "rootfs.tar", time.Time{}, bytes.NewReader(data))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/catalogue.json"
}
