package ipc

import (
	"regexp"
	"strings"
)

// nameRE is a sandbox name or fleet prefix: lowercase, a hostname and a
// folder name on every platform, no path separators, no leading dot.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// CheckName says what is wrong with a sandbox name or fleet prefix (what
// says which), or returns nil. It is the one rule: the controller refuses
// with it and the desktop's Add dialog checks each keystroke with it.
func CheckName(what, v string) error {
	if !nameRE.MatchString(v) {
		return Errorf(ErrInvalid, "%s %q is not valid: use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", what, v)
	}
	// ".." could still become a path on some platforms; a trailing dot is
	// dropped by Windows and would name another folder
	if strings.Contains(v, "..") || strings.HasSuffix(v, ".") {
		return Errorf(ErrInvalid, "%s %q is not valid: no \"..\" and no trailing '.'", what, v)
	}
	return nil
}
