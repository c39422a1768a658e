//go:build linux

package bubblewrap

import (
	"archive/tar"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bwrap: Can't find source path /etc/ssl", "bwrap: Can't find source path /etc/ssl"},
		{"title \x1b]0;pwned\x07 red \x1b[31m", `title \u001b]0;pwned\u0007 red \u001b[31m`},
		{"two\nlines\tand a tab", "two lines and a tab"},
		{"C1 CSI \x9b2J outside UTF-8", `C1 CSI \x9b2J outside UTF-8`},
		{"C1 CSI \u009b2J in UTF-8", `C1 CSI \u009b2J in UTF-8`},
		{"right-to-left \u202eoverride", `right-to-left \u202eoverride`},
		{"café, 日本, \ufffd stay", "café, 日本, \ufffd stay"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHostileImageNamesWithControlCharacters: an image whose names hold
// an escape sequence would have it printed, raw, in an error, `inspect`
// or the app's window, and the person's terminal would obey it (set its
// title, write its clipboard). Such a tarball is refused with one line
// that holds no control character.
func TestHostileImageNamesWithControlCharacters(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
	}{
		{"an escape sequence in a file name", []entry{{name: "etc/", typ: tar.TypeDir}, {name: "etc/\x1b]0;pwned\x07\x1b[2J", typ: tar.TypeReg, body: "x"}}},
		{"an escape sequence in a folder name", []entry{{name: "etc/\x1b[31m/", typ: tar.TypeDir}}},
		{"a C1 control byte in a name", []entry{{name: "usr/\x9b2J", typ: tar.TypeReg, body: "x"}}},
		{"a line break in a name", []entry{{name: "etc/a\nb", typ: tar.TypeReg, body: "x"}}},
		{"an escape sequence in a link's target", []entry{{name: "etc/", typ: tar.TypeDir}, {name: "etc/l", typ: tar.TypeSymlink, link: "\x1b]52;c;cm0gLXJmIH4K\x07"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Backend{root: t.TempDir()}
			tarball := filepath.Join(t.TempDir(), "hostile.tar")
			writeTarball(t, tarball, false, tt.entries)
			_, err := b.Import(t.Context(), "hostile", tarball)
			if err == nil || !strings.Contains(err.Error(), "control character") || hasControl(err.Error()) {
				t.Errorf("import: %q, want one line about a control character, with none in it", err)
			}
			if left, _ := os.ReadDir(b.imagesDir()); len(left) != 0 {
				t.Errorf("a refused import left %v in the images folder", left)
			}
		})
	}
}

// TestHostileStartErrorShownAsText: when bwrap gives up at start it
// names the path it failed on, which an image chose (an image changed by
// hand, or imported by an older version). Its message reaches the person
// as text: no escape sequence of it is left for a terminal to obey.
func TestHostileStartErrorShownAsText(t *testing.T) {
	r := newRig(t)
	dir, err := os.MkdirTemp("", "sdbwrap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755) // the launcher runs it as the sandbox's host user
	// bwrap itself, failing on a source path with an escape sequence in
	// its name as it fails on an image's unreachable /etc entry
	script := "#!/bin/sh\ncase \"$*\" in *" + "__sandboxdesk_agent" + "*) exec " + r.b.bwrap +
		" --ro-bind \"/nonexistent/$(printf '\\033]0;pwned\\007\\033[2J')\" /x \"$@\";; esac\nexec " + r.b.bwrap + " \"$@\"\n"
	fake := filepath.Join(dir, "bwrap")
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(fake, "--version").CombinedOutput(); err != nil {
		t.Fatalf("the wrapper does not run: %v %s", err, out)
	}
	b, err := New(Config{Root: r.root, Agent: os.Args[0], Bwrap: fake})
	if err != nil {
		t.Fatal(err)
	}
	s := r.spec("escape")
	s.MemoryMiB = 128
	_, err = b.Start(t.Context(), s)
	if err == nil {
		b.Remove(context.Background(), s.ID)
		t.Fatal("the sandbox started on a bwrap that fails")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "pwned") || hasControl(err.Error()) {
		t.Errorf("start: %q, want bwrap's message with no control character", err)
	}
}
