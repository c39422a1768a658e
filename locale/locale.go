// Package locale reads a C or POSIX locale as English before Fyne looks at
// it. Fyne cannot parse "C.UTF-8" and logs an error about it while its
// packages initialize, even in a CLI run, where it would break the
// promise of one line on stderr. The locale is only Fyne's choice of
// language here, so nothing is lost.
//
// It works because of Go's initialization order: a package is initialized
// as soon as its imports are, smallest import path first, and this one
// needs only os and strings while Fyne's language package waits for
// text/template. Import it, blank, from main; keep its imports to those.
package locale

import (
	"os"
	"strings"
)

func init() { fix(os.Getenv, os.Setenv) }

// fix replaces the first locale variable that is set, as the C library
// reads them, when it names the C or POSIX locale.
func fix(get func(string) string, set func(string, string) error) {
	for _, key := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := get(key)
		if v == "" {
			continue
		}
		if base, _, _ := strings.Cut(v, "."); base == "C" || base == "POSIX" {
			set(key, "en_US.UTF-8")
		}
		return
	}
}
