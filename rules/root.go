package rules

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// RootEnv names the environment variable that overrides the default root.
const RootEnv = "SANDBOXDESK_ROOT"

// ResolveRoot picks the root folder: the --root flag if given, else
// $SANDBOXDESK_ROOT, else the per-user data folder of this platform. The
// result is absolute, because a daemon started for it may run elsewhere.
func ResolveRoot(flagValue string) (string, error) {
	root := flagValue
	if root == "" {
		root = os.Getenv(RootEnv)
	}
	if root == "" {
		home, _ := os.UserHomeDir()
		root = defaultRoot(runtime.GOOS, os.Getenv, home)
	}
	if root == "" {
		return "", errors.New("no root folder: set --root or " + RootEnv)
	}
	return filepath.Abs(root)
}

// defaultRoot is the per-user data folder where sandboxdesk keeps its state
// on goos: XDG's data home on Linux, Application Support on macOS and the
// local (not roaming) AppData on Windows, since sandboxes are machine-bound.
func defaultRoot(goos string, getenv func(string) string, home string) string {
	// joined by hand, not with filepath.Join, so every platform's answer
	// can be tested on any platform
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	join := func(p ...string) string { return strings.Join(p, sep) }
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			return join(d, "sandboxdesk")
		}
		if home != "" {
			return join(home, "AppData", "Local", "sandboxdesk")
		}
	case "darwin":
		if home != "" {
			return join(home, "Library", "Application Support", "sandboxdesk")
		}
	default:
		if d := getenv("XDG_DATA_HOME"); strings.HasPrefix(d, "/") {
			return join(d, "sandboxdesk")
		}
		if home != "" {
			return join(home, ".local", "share", "sandboxdesk")
		}
	}
	return ""
}
