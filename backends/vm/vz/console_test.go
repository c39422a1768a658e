//go:build unix

package vz

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileConsoleFlood: a guest that writes to its console without
// end fills a log that is cut back to its tail, while the framework's
// append-mode writes carry on after it.
func TestHostileConsoleFlood(t *testing.T) {
	const limit = 64 << 10
	path := filepath.Join(t.TempDir(), "console.log")
	// the framework's side: append mode, as the driver asks it
	guest, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()
	tests := []struct {
		name     string
		write    []byte
		wantSize int64 // after the trim, before the next write
		wantHead string
	}{
		{"under the limit: left alone", bytes.Repeat([]byte("boot\n"), 1000), 5000, "boot\n"},
		{"past it: cut to its tail", bytes.Repeat([]byte("x"), 3*limit), -1, "[sandboxdesk: the console log passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := guest.Write(tt.write); err != nil {
				t.Fatal(err)
			}
			if err := trimConsole(path, limit); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantSize >= 0 && int64(len(got)) != tt.wantSize {
				t.Errorf("%d bytes, want %d", len(got), tt.wantSize)
			}
			if int64(len(got)) > limit {
				t.Errorf("%d bytes kept, more than the limit %d", len(got), limit)
			}
			if !strings.HasPrefix(string(got), tt.wantHead) {
				t.Errorf("starts %.60q, want %q", got, tt.wantHead)
			}
		})
	}
	// the guest's next words follow the kept tail, with no hole before them
	if _, err := guest.Write([]byte("last words\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(got), strings.Repeat("x", 10)+"last words\n") || int64(len(got)) > limit {
		t.Errorf("after the cut the log ends %.40q (%d bytes)", got[max(0, len(got)-40):], len(got))
	}
	if bytes.Contains(got, []byte{0}) {
		t.Error("the log has a hole of zeros: the writer kept its old offset")
	}
}

// TestHostileConsoleLink: the log is never cut through a link.
func TestHostileConsoleLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, bytes.Repeat([]byte("keep"), 1000), 0o600)
	link := filepath.Join(dir, "console.log")
	os.Symlink(victim, link)
	if err := trimConsole(link, 16); err == nil {
		t.Error("cut the log through a link")
	}
	if st, _ := os.Stat(victim); st.Size() != 4000 {
		t.Errorf("the link's target was changed: %d bytes", st.Size())
	}
}
