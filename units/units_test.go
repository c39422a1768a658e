package units

import (
	"errors"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
	}{
		{"512MiB", 512 * MiB},
		{"2GiB", 2 * GiB},
		{"2 GiB", 2 * GiB},
		{"2gib", 2 * GiB},
		{"14.4GiB", 15461882265}, // 14.4 * 2^30 rounded down
		{"239GiB", 239 * GiB},
		{"1024", 1024 * MiB}, // a bare number is MiB
		{"0.5", 512 * KiB},
		{"1.5TiB", 1536 * GiB},
		{"64KiB", 64 * KiB},
		{"100B", 100},
		{"0", 0},
		{" 8GiB ", 8 * GiB},
		{".5GiB", 512 * MiB},
		{"3.", 3 * MiB},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if err != nil {
			t.Errorf("ParseSize(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseSizeErrors(t *testing.T) {
	for _, in := range []string{
		"", " ", "-1GiB", "-0", "lots", "2GB", "2G", "2 gigabytes", "1e3",
		"0x10", "inf", "NaN", "1/2", "1.2.3GiB", ".", "GiB", "+5MiB",
		"99999999999TiB", "1.0000000000001GiB", "2GiB5",
	} {
		got, err := ParseSize(in)
		if err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseSize(%q) error %v does not wrap ErrSyntax", in, err)
		}
	}
}

func TestSizeString(t *testing.T) {
	tests := []struct {
		in   Size
		want string
	}{
		{8 * GiB, "8 GiB"},
		{512 * MiB, "512 MiB"},
		{15461882265, "14.4 GiB"},
		{1536 * MiB, "1.5 GiB"},
		{100, "100 B"},
		{0, "0 B"},
		{2 * TiB, "2 TiB"},
		{-2 * GiB, "-2 GiB"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Size(%d).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		mib  int64
		want string
	}{
		{4096, "4 GiB"},
		{0, "0 MiB"},
		// from a hostile request: 2^44+512 MiB once wrapped to 512 MiB
		{17592186044928, "17592186044928 MiB"},
		{-17592186044928, "-17592186044928 MiB"},
	} {
		if got := FormatMiB(tt.mib); got != tt.want {
			t.Errorf("FormatMiB(%d) = %q, want %q", tt.mib, got, tt.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"90s", 90 * time.Second, false},
		{"10m", 10 * time.Minute, false},
		{"1h30m", 90 * time.Minute, false},
		{"0", 0, false},
		{"-1m", 0, true},
		{"", 0, true},
		{"soon", 0, true},
		{"10", 0, true}, // Go durations need a unit
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzParseSize checks that no input panics, that every accepted size is
// non-negative, and that Exact prints a size ParseSize reads back exactly.
func FuzzParseSize(f *testing.F) {
	for _, seed := range []string{"512MiB", "2GiB", "14.4GiB", "1024", "-1GiB", "lots", "0.5", "1e3", "9999999999999TiB", "1.5 kib"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSize(in)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseSize(%q): error %v does not wrap ErrSyntax", in, err)
			}
			return
		}
		if s < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", in, s)
		}
		back, err := ParseSize(s.Exact())
		if err != nil || back != s {
			t.Fatalf("ParseSize(%q) = %d; Exact %q reads back %d, %v", in, s, s.Exact(), back, err)
		}
		_ = s.String()
	})
}

func TestAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "now"}, {59 * time.Second, "now"}, {time.Minute, "1 min"}, {59 * time.Minute, "59 min"},
		{time.Hour, "1 h"}, {47 * time.Hour, "47 h"}, {48 * time.Hour, "2 d"}, {-time.Second, "now"},
	}
	for _, tt := range tests {
		if got := Age(tt.d); got != tt.want {
			t.Errorf("Age(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
