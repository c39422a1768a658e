package text

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"short", "mount failed", 20, "mount failed"},
		{"escape", "\x1b]52;c;cHduZWQ=\x07", 40, `\u001b]52;c;cHduZWQ=\u0007`},
		{"cut", strings.Repeat("a", 30), 10, "aaaaaaaaaa … (20 bytes more)"},
		{"cut before a rune", "ab日本", 4, "ab … (6 bytes more)"},
	}
	for _, tt := range tests {
		if got := Line(tt.in, tt.max); got != tt.want {
			t.Errorf("%s: Line(%q, %d) = %q, want %q", tt.name, tt.in, tt.max, got, tt.want)
		}
	}
}
