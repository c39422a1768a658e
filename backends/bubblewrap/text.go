package bubblewrap

import (
	"unicode"
	"unicode/utf8"

	"sandboxdesk/text"
)

// printable is what an image or a sandbox said, shown as text and never
// obeyed.
func printable(s string) string { return text.Printable(s) }

// hasControl reports whether s holds a control character, or a byte a
// terminal reads as one (C1, 0x80 to 0x9f, outside UTF-8).
func hasControl(s string) bool {
	for i, r := range s {
		if unicode.IsControl(r) || (r == utf8.RuneError && s[i] >= 0x80 && s[i] <= 0x9f) {
			return true
		}
	}
	return false
}
