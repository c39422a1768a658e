package wsl

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recorded reads a recorded wsl.exe output (kept as UTF-8 text to be
// read here) and encodes it as wsl.exe writes it: UTF-16LE with CRLF,
// with a byte-order mark or without.
func recorded(t *testing.T, file string, bom bool) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	out := encodeUTF16(strings.ReplaceAll(string(text), "\n", "\r\n"))
	if bom {
		out = append([]byte{0xff, 0xfe}, out...)
	}
	return out
}

func TestParseList(t *testing.T) {
	tests := []struct {
		file string
		want []Distro
	}{
		{"list-en.txt", []Distro{
			{Name: "Ubuntu-22.04", State: StateRunning, Version: 2, Default: true, RawState: "Running"},
			{Name: "docker-desktop", State: StateStopped, Version: 2, RawState: "Stopped"},
			{Name: "Legacy", State: StateStopped, Version: 1, RawState: "Stopped"},
		}},
		{"list-de.txt", []Distro{
			{Name: "Ubuntu", State: StateRunning, Version: 2, Default: true, RawState: "Wird ausgeführt"},
			{Name: "Debian", State: StateStopped, Version: 2, RawState: "Beendet"},
		}},
		{"list-fr.txt", []Distro{
			{Name: "Ubuntu", State: StateRunning, Version: 2, Default: true, RawState: "En cours d'exécution"},
			{Name: "Debian", State: StateStopped, Version: 2, RawState: "Arrêté"},
		}},
		{"list-installing.txt", []Distro{
			{Name: "Ubuntu", State: StateRunning, Version: 2, Default: true, RawState: "Running"},
			{Name: "kali-linux", State: StateInstalling, Version: 2, RawState: "Installing"},
		}},
		{"list-empty-en.txt", nil},
		{"list-empty-de.txt", nil},
		{"list-missing.txt", nil},
	}
	for _, tt := range tests {
		for _, bom := range []bool{false, true} {
			got := parseList(decode(recorded(t, tt.file, bom)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s (BOM %v):\n got %+v\nwant %+v", tt.file, bom, got, tt.want)
			}
		}
	}
}

func TestDecodeUTF8(t *testing.T) {
	// WSL_UTF8=1 makes wsl.exe write UTF-8; it must read the same
	text := "  NAME   STATE   VERSION\r\n* Ubuntu Running 2\r\n"
	for _, in := range [][]byte{[]byte(text), append([]byte{0xef, 0xbb, 0xbf}, text...)} {
		if got := parseList(decode(in)); len(got) != 1 || got[0].Name != "Ubuntu" || got[0].State != StateRunning {
			t.Errorf("decode %q: %+v", in, got)
		}
	}
}

func TestClassify(t *testing.T) {
	failed := errors.New("exit status 4294967295")
	tests := []struct {
		file string
		want error
	}{
		{"list-missing.txt", ErrWSLMissing},
		{"list-missing-de.txt", ErrWSLMissing},
		{"import-virt-off.txt", ErrVirtualOff},
		{"import-wsl1.txt", ErrWSL1Only},
		{"list-empty-en.txt", errNoDistros},
		{"list-empty-de.txt", errNoDistros},
	}
	for _, tt := range tests {
		for _, bom := range []bool{false, true} {
			err := classify("list WSL distros", recorded(t, tt.file, bom), failed)
			if !errors.Is(err, tt.want) {
				t.Errorf("%s (BOM %v): got %v, want %v", tt.file, bom, err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: the message spans lines: %q", tt.file, err)
			}
		}
	}
	if err := classify("list WSL distros", nil, errNoWSLExe); !errors.Is(err, ErrWSLMissing) {
		t.Errorf("no wsl.exe: got %v", err)
	}
	if err := classify("x", []byte("ok"), nil); err != nil {
		t.Errorf("success classified as %v", err)
	}
	// an unknown failure keeps what wsl.exe said
	err := classify("import dev into WSL", encodeUTF16("Catastrophic failure\r\nError code: Wsl/E_UNEXPECTED\r\n"), failed)
	if err == nil || !strings.Contains(err.Error(), "Catastrophic failure Error code: Wsl/E_UNEXPECTED") {
		t.Errorf("unknown failure: %v", err)
	}
}
