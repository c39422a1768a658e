package vz

import (
	"errors"
	"strings"
	"testing"
)

func TestMajorVersion(t *testing.T) {
	for product, want := range map[string]int{"14.2.1": 14, "13.0": 13, "15": 15, "26.1\n": 26, "": 0, "x.1": 0} {
		if got := majorVersion(product); got != want {
			t.Errorf("%q: %d, want %d", product, got, want)
		}
	}
}

func TestCanCheckpoint(t *testing.T) {
	tests := []struct {
		goarch string
		macOS  int
		want   bool
	}{
		{"arm64", 14, true},
		{"arm64", 15, true},
		{"arm64", 13, false}, // no saved state before 14
		{"amd64", 15, false}, // the framework saves only on Apple silicon
	}
	for _, tt := range tests {
		if got := canCheckpoint(tt.goarch, tt.macOS); got != tt.want {
			t.Errorf("%s on macOS %d: %v, want %v", tt.goarch, tt.macOS, got, tt.want)
		}
	}
}

func TestCheckKernel(t *testing.T) {
	image := make([]byte, 4096)
	copy(image[56:], "ARM\x64")
	bz := make([]byte, 4096)
	copy(bz[0x202:], "HdrS")
	gz := append([]byte{0x1f, 0x8b, 8, 0}, make([]byte, 100)...)
	tests := []struct {
		name, goarch string
		head         []byte
		wantErr      string
	}{
		{"an arm64 Image", "arm64", image, ""},
		{"a bzImage on Intel", "amd64", bz, ""},
		{"a compressed arm64 kernel", "arm64", gz, "gzip-compressed"},
		{"an x86 kernel on Apple silicon", "arm64", bz, "not an arm64 Image"},
		{"an arm64 Image on Intel", "amd64", image, "not an x86 bzImage"},
		{"a short file", "arm64", []byte("ARM"), "not an arm64 Image"},
	}
	for _, tt := range tests {
		err := checkKernel(tt.head, tt.goarch)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestMACAddress(t *testing.T) {
	a, b := macAddress([]byte("machine a")), macAddress([]byte("machine b"))
	if a.String() != macAddress([]byte("machine a")).String() {
		t.Error("one machine, two addresses")
	}
	if a.String() == b.String() {
		t.Error("two machines, one address")
	}
	if a[0]&0x01 != 0 || a[0]&0x02 == 0 {
		t.Errorf("%s is not a locally administered unicast address", a)
	}
}

func TestExplain(t *testing.T) {
	tests := []struct {
		said        string
		unsupported bool
		want        string
	}{
		{`Invalid virtual machine configuration. The process doesn’t have the “com.apple.security.virtualization” entitlement.`, true, "make build"},
		{"Virtualization is not available on this hardware.", true, "not available on this hardware"},
		{"The virtual machine limit was exceeded.", false, "stop a sandbox"},
		{"Invalid storage device attachment.", false, "disk was refused"},
		{"Something new.", false, "refused the VM: Something new."},
	}
	for _, tt := range tests {
		err := explain(tt.said)
		if errors.Is(err, ErrUnsupported) != tt.unsupported || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v", tt.said, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: more than one line", tt.said)
		}
	}
}
