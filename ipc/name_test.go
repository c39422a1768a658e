package ipc

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestNameShapeIsTheRule: the written-out check accepts exactly what the
// rule ^[a-z0-9][a-z0-9._-]{0,62}$ accepts.
func TestNameShapeIsTheRule(t *testing.T) {
	rule := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	for _, v := range []string{
		"", "a", "0", "box", "my-box_1.2", "a..b", "a.", ".a", "-a", "_a",
		"A", "bOx", "box/1", "box 1", "bo\x00x", "é", "box\n",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "a" + strings.Repeat("-", 62),
	} {
		if got, want := nameShape(v), rule.MatchString(v); got != want {
			t.Errorf("nameShape(%q) = %v, the rule says %v", v, got, want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"box", true}, {"my-box.2", true}, {"a..b", false}, {"box.", false},
		{"Box", false}, {"", false}, {"../etc", false},
	} {
		err := CheckName("name", tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckName(%q) = %v, not ErrInvalid", tc.name, err)
		}
	}
}
