package main

import "testing"

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct{ in, mac, win string }{
		{"v1.2.3", "1.2.3", "1.2.3.0"},
		{"1.2.3", "1.2.3", "1.2.3.0"},
		{"v0.4.0-12-gabc1234", "0.4.0", "0.4.0.12"},
		{"v0.4.0-12-gabc1234-dirty", "0.4.0", "0.4.0.12"},
		{"v2.0.0-rc1", "2.0.0", "2.0.0.0"},
		{"v1.2", "1.2.0", "1.2.0.0"},
		{"dev", "0.0.0", "0.0.0.0"},
		{"abc1234-dirty", "0.0.0", "0.0.0.0"},
		{"", "0.0.0", "0.0.0.0"},
		{"v1.2.3.4", "0.0.0", "0.0.0.0"},
		{"v70000.0.0", "0.0.0", "0.0.0.0"},
		{"v1.-1.0", "0.0.0", "0.0.0.0"},
	} {
		n := parseVersion(tc.in)
		if got := n.short(); got != tc.mac {
			t.Errorf("macOS version of %q = %s, want %s", tc.in, got, tc.mac)
		}
		if got := n.windows("."); got != tc.win {
			t.Errorf("Windows version of %q = %s, want %s", tc.in, got, tc.win)
		}
	}
}
