package catalogue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves files by name, each request passed through behave first
// (which may cut, stall or ignore Range); it records the Range headers.
type server struct {
	files  map[string][]byte
	behave func(w http.ResponseWriter, r *http.Request, n int, data []byte) bool

	mu     sync.Mutex
	counts map[string]int
	ranges []string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	data, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.counts[name]++
	n := s.counts[name]
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.mu.Unlock()
	if s.behave != nil && s.behave(w, r, n, data) {
		return
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// fixture is a server with two files and the image that lists them.
func fixture(t *testing.T, behave func(http.ResponseWriter, *http.Request, int, []byte) bool) (*server, Image) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	s := &server{files: map[string][]byte{"rootfs.ext4": big, "manifest.json": []byte(`{"name":"tiny"}`)}, behave: behave, counts: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	img := Image{Name: "tiny", Backend: "vm", Arch: "amd64"}
	for _, name := range []string{"rootfs.ext4", "manifest.json"} {
		h := sha256.Sum256(s.files[name])
		img.Files = append(img.Files, File{Name: name, URL: srv.URL + "/" + name, Size: int64(len(s.files[name])), SHA256: hex.EncodeToString(h[:])})
	}
	return s, img
}

// pull runs a pull into a fresh images folder and returns the folder, the
// progress reports and the error.
func pull(t *testing.T, c *Client, img Image) (string, []Progress, error) {
	t.Helper()
	dir := t.TempDir()
	var got []Progress
	err := c.Pull(context.Background(), img, filepath.Join(dir, "amd64-tiny"), func(p Progress) { got = append(got, p) })
	return dir, got, err
}

func checkMonotonic(t *testing.T, got []Progress, total int64) {
	t.Helper()
	if len(got) < 2 {
		t.Fatalf("%d progress reports, want several", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Bytes < got[i-1].Bytes {
			t.Errorf("progress went back: %d then %d", got[i-1].Bytes, got[i].Bytes)
		}
		if got[i].Total != total || got[i].Bytes > total {
			t.Errorf("report %d: %d of %d, the image has %d", i, got[i].Bytes, got[i].Total, total)
		}
	}
	if last := got[len(got)-1]; last.Bytes != total {
		t.Errorf("the last report says %d of %d", last.Bytes, total)
	}
}

// checkOnly says the images folder holds exactly names (hidden ones too).
func checkOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("the images folder holds %q, want %q", got, names)
	}
}

func TestPullProgressToTotal(t *testing.T) {
	s, img := fixture(t, nil)
	dir, got, err := pull(t, &Client{Every: time.Nanosecond}, img)
	if err != nil {
		t.Fatal(err)
	}
	checkMonotonic(t, got, img.Size())
	checkOnly(t, dir, "amd64-tiny")
	for name, want := range s.files {
		if data, err := os.ReadFile(filepath.Join(dir, "amd64-tiny", name)); err != nil || !bytes.Equal(data, want) {
			t.Errorf("%s: %d bytes, %v; want the server's %d", name, len(data), err, len(want))
		}
	}
}

// cutAt sends the first n bytes of a file's first answer, announcing all
// of it, and drops the connection.
func cutAt(n int) func(http.ResponseWriter, *http.Request, int, []byte) bool {
	return func(w http.ResponseWriter, r *http.Request, count int, data []byte) bool {
		if count > 1 || len(data) < n {
			return false
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:n])
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return true
	}
}

func TestPullCutResumes(t *testing.T) {
	const at = 1 << 20
	s, img := fixture(t, cutAt(at))
	dir, got, err := pull(t, &Client{Every: time.Nanosecond}, img)
	if err != nil {
		t.Fatal(err)
	}
	checkMonotonic(t, got, img.Size())
	if !strings.Contains(strings.Join(s.ranges, ","), "bytes="+strconv.Itoa(at)+"-") {
		t.Errorf("the resume asked for ranges %q, want bytes=%d-", s.ranges, at)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "amd64-tiny", "rootfs.ext4"))
	if !bytes.Equal(data, s.files["rootfs.ext4"]) {
		t.Errorf("the resumed file differs from the server's (%d bytes)", len(data))
	}
}

// a server that ignores Range sends the whole file again: the part is
// completed all the same and the progress never goes back
func TestPullResumesWithoutRange(t *testing.T) {
	cut := cutAt(1 << 20)
	s, img := fixture(t, func(w http.ResponseWriter, r *http.Request, n int, data []byte) bool {
		if cut(w, r, n, data) {
			return true
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
		return true
	})
	dir, got, err := pull(t, &Client{Every: time.Nanosecond}, img)
	if err != nil {
		t.Fatal(err)
	}
	checkMonotonic(t, got, img.Size())
	data, _ := os.ReadFile(filepath.Join(dir, "amd64-tiny", "rootfs.ext4"))
	if !bytes.Equal(data, s.files["rootfs.ext4"]) {
		t.Error("the file differs from the server's")
	}
}

// a pull called off leaves its part, and the next one goes on from it
func TestPullAgainResumes(t *testing.T) {
	const at = 1 << 20
	s, img := fixture(t, cutAt(at))
	dir := t.TempDir()
	dest := filepath.Join(dir, "amd64-tiny")
	err := (&Client{Retries: -1}).Pull(context.Background(), img, dest, nil)
	if err == nil || !strings.Contains(err.Error(), "cut") {
		t.Fatalf("a pull that may not retry: %v, want the cut", err)
	}
	checkOnly(t, dir, ".pull-amd64-tiny")
	if err := (&Client{}).Pull(context.Background(), img, dest, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.ranges[len(s.ranges)-2]; got != "bytes="+strconv.Itoa(at)+"-" {
		t.Errorf("the second pull asked for %q, want the rest", got)
	}
	checkOnly(t, dir, "amd64-tiny")
}

func TestPullWrongChecksumLeavesNothing(t *testing.T) {
	_, img := fixture(t, nil)
	img.Files[0].SHA256 = strings.Repeat("ab", 32)
	dir, _, err := pull(t, &Client{}, img)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("pull with a wrong sha256: %v", err)
	}
	for _, say := range []string{"rootfs.ext4", "sha256", "deleted"} {
		if !strings.Contains(err.Error(), say) {
			t.Errorf("the error %q does not say %q", err, say)
		}
	}
	checkOnly(t, dir)
}

func TestPullSilentServerTimesOut(t *testing.T) {
	tests := []struct {
		name   string
		behave func(http.ResponseWriter, *http.Request, int, []byte) bool
	}{
		{"no answer", func(w http.ResponseWriter, r *http.Request, _ int, _ []byte) bool {
			<-r.Context().Done()
			return true
		}},
		{"silent after a start", func(w http.ResponseWriter, r *http.Request, _ int, data []byte) bool {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data[:len(data)/2])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return true
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, img := fixture(t, tt.behave)
			_, _, err := pull(t, &Client{Idle: 200 * time.Millisecond}, img)
			if !errors.Is(err, ErrSilent) || !strings.Contains(err.Error(), "the server sent nothing for 200ms") {
				t.Fatalf("pull from a silent server: %v", err)
			}
		})
	}
}

func TestPullServerRefuses(t *testing.T) {
	_, img := fixture(t, nil)
	img.Files[1].URL += ".missing"
	dir, _, err := pull(t, &Client{}, img)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("pull of a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "amd64-tiny")); !os.IsNotExist(err) {
		t.Errorf("an image with a missing file is visible: %v", err)
	}
}

func TestLoad(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogue.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, entry("tiny", "vm", "amd64", "vmlinuz", "tiny/vmlinuz", 5, sum))
	})
	mux.HandleFunc("/evil.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, entry("tiny", "vm", "amd64", "../vmlinuz", "tiny/vmlinuz", 5, sum))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{}
	cat, err := c.Load(context.Background(), srv.URL+"/catalogue.json")
	if err != nil || len(cat.Images) != 1 || cat.Images[0].Files[0].URL != srv.URL+"/tiny/vmlinuz" {
		t.Errorf("load: %+v, %v", cat, err)
	}
	if _, err := c.Load(context.Background(), srv.URL+"/evil.json"); err == nil || !strings.Contains(err.Error(), "not a plain name") {
		t.Errorf("a catalogue with a climbing file name: %v", err)
	}
	if _, err := c.Load(context.Background(), "file:///etc/passwd"); err == nil {
		t.Error("a file: catalogue was read")
	}
}

// a second pull into the folder one is filling is refused, not mixed in
func TestPullOnceAtATime(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	_, img := fixture(t, func(w http.ResponseWriter, r *http.Request, n int, data []byte) bool {
		if n == 1 && strings.HasSuffix(r.URL.Path, "rootfs.ext4") {
			close(started)
			<-release
		}
		return false
	})
	c := &Client{}
	dest := filepath.Join(t.TempDir(), "amd64-tiny")
	first := make(chan error, 1)
	go func() { first <- c.Pull(context.Background(), img, dest, nil) }()
	<-started
	err := c.Pull(context.Background(), img, dest, nil)
	close(release)
	if err == nil || !strings.Contains(err.Error(), "already under way") {
		t.Errorf("a second pull at once: %v", err)
	}
	if err := <-first; err != nil {
		t.Errorf("the first pull: %v", err)
	}
}
