// Package text turns words an untrusted party wrote (an image, a
// sandbox, a guest's agent) into text a person's terminal or the app's
// window shows and never obeys. It is not for a command's own output,
// which a terminal receives as it is on purpose.
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s with every control or invisible character (an escape
// sequence sets a terminal's title, writes its clipboard, hides what
// follows) and every byte that is not UTF-8 written out as an escape, and
// line breaks as spaces.
func Printable(s string) string {
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

// Line is Printable(s) cut to at most max bytes of s, marked as cut, so
// a megabyte of words makes one line of a notice.
func Line(s string, max int) string {
	if len(s) <= max {
		return Printable(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return Printable(s[:cut]) + fmt.Sprintf(" … (%d bytes more)", len(s)-cut)
}
