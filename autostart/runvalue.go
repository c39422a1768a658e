package autostart

import (
	"fmt"
	"strings"
)

// runKey is where Windows keeps the programs a user's login starts.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// runCommand is the Run value's command line for exe: quoted, since
// Explorer splits an unquoted line at its first space ("C:\Program" of
// "C:\Program Files\..."). A path cannot hold a quote on Windows; one that
// does is refused rather than written as two arguments.
func runCommand(name, exe string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	// the login does not start in the app's folder
	if !windowsAbs(exe) {
		return "", fmt.Errorf("login entry %s: the program %q is not an absolute path", name, exe)
	}
	if strings.Contains(exe, `"`) {
		return "", fmt.Errorf("login entry %s: the program %q holds a quote", name, exe)
	}
	return `"` + exe + `"`, nil
}

// windowsAbs tells whether p is an absolute Windows path, a drive's
// (C:\...) or a share's (\\server\share\...), on any platform, so the
// tests here pin what Windows gets.
func windowsAbs(p string) bool {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return strings.HasPrefix(p, `\\`) && len(p) > 2
}
