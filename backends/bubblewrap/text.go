package bubblewrap

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable is s for a person's terminal or the app's window: every
// control or invisible character (an escape sequence sets a terminal's
// title, writes its clipboard, hides what follows) and every byte that is
// not UTF-8 is written out as an escape, and line breaks become spaces,
// so what an image or a sandbox put in a message is shown, never obeyed.
func printable(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case !unicode.IsPrint(r) && r != ' ':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		s = s[n:]
	}
	return b.String()
}

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
