package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestResourceScript(t *testing.T) {
	w := winExe{Version: "v0.4.0-12-gabc1234", File: "sandboxdesk-app.exe", Description: `sandboxdesk "desk"`, Icon: `C:\icons\sandboxdesk.ico`, Manifest: "/m/sandboxdesk-app.manifest"}
	rc := w.resourceScript()
	for _, want := range []string{
		`1 ICON "C:/icons/sandboxdesk.ico"`,
		`1 24 "/m/sandboxdesk-app.manifest"`,
		"FILEVERSION 0,4,0,12\n",
		"PRODUCTVERSION 0,4,0,12\n",
		`VALUE "FileVersion", "v0.4.0-12-gabc1234"`,
		`VALUE "FileDescription", "sandboxdesk ""desk"""`,
		`VALUE "OriginalFilename", "sandboxdesk-app.exe"`,
		`VALUE "InternalName", "sandboxdesk-app"`,
	} {
		if !strings.Contains(rc, want) {
			t.Errorf("the script lacks %s:\n%s", want, rc)
		}
	}
}

// windres, the MinGW tool the Makefile uses, compiles the script into the
// object Go links: the version is in it as Windows reads it, UTF-16.
func TestResourceScriptCompiles(t *testing.T) {
	windres, err := exec.LookPath("x86_64-w64-mingw32-windres")
	if err != nil {
		t.Skip("x86_64-w64-mingw32-windres is not installed (gcc-mingw-w64-x86-64): the script is not compiled")
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, "sandboxdesk app.rc")
	if err := run([]string{"winres", "-version", "v0.4.0-12-gabc1234", "-file", "sandboxdesk-app.exe", "-description", "sandboxdesk", "-icon", "../../assets/icons/sandboxdesk.ico", "-out", rc}, nil); err != nil {
		t.Fatal(err)
	}
	syso := filepath.Join(dir, "rsrc_windows_amd64.syso")
	if out, err := exec.Command(windres, "-O", "coff", "-i", rc, "-o", syso).CombinedOutput(); err != nil {
		t.Fatalf("windres: %v\n%s", err, out)
	}
	obj, err := os.ReadFile(syso)
	if err != nil {
		t.Fatal(err)
	}
	// the .ico keeps its 256 px image as this PNG, and so does the object
	big, err := os.ReadFile("../../assets/icons/sandboxdesk-256.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(obj, big) {
		t.Error("the object lacks the icon's 256 px image")
	}
	for _, want := range []string{"v0.4.0-12-gabc1234", "ProductVersion", "asInvoker"} {
		enc := []byte(want)
		if want != "asInvoker" { // the manifest is kept as its UTF-8 bytes
			enc = utf16le(want)
		}
		if !bytes.Contains(obj, enc) {
			t.Errorf("the object lacks %q", want)
		}
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func TestWinVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"winversion", "-version", "v1.2.3-4-gabc"}, &out); err != nil || out.String() != "1.2.3.4\n" {
		t.Errorf("winversion printed %q, %v; want 1.2.3.4", out.String(), err)
	}
	if err := run([]string{"winres", "-out", "x.txt"}, &out); err == nil {
		t.Error("winres wrote to a file not named .rc")
	}
	if err := run([]string{"linux"}, &out); err == nil {
		t.Error("an unknown platform was accepted")
	}
}
