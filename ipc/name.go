package ipc

import "strings"

// nameShape reports whether v is a sandbox name or fleet prefix:
// ^[a-z0-9][a-z0-9._-]{0,62}$ — lowercase, a hostname and a folder name
// on every platform, no path separators, no leading dot. It is written out
// rather than a regexp because every command line checks a name, and
// compiling a regexp at start costs each of them a measurable part of its
// run.
func nameShape(v string) bool {
	if len(v) == 0 || len(v) > 63 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CheckName says what is wrong with a sandbox name or fleet prefix (what
// says which), or returns nil. It is the one rule: the controller refuses
// with it and the desktop's Add dialog checks each keystroke with it.
func CheckName(what, v string) error {
	if !nameShape(v) {
		return Errorf(ErrInvalid, "%s %q is not valid: use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", what, v)
	}
	// ".." could still become a path on some platforms; a trailing dot is
	// dropped by Windows and would name another folder
	if strings.Contains(v, "..") || strings.HasSuffix(v, ".") {
		return Errorf(ErrInvalid, "%s %q is not valid: no \"..\" and no trailing '.'", what, v)
	}
	return nil
}
