package cli

import "strings"

// WantsApp reports whether args ask for the desktop app rather than a
// subcommand: none at all, or only a root ("--root DIR"), as a launcher or
// a person testing may pass. Both the command line and the app decide
// with it.
func WantsApp(args []string) (root string, ok bool) {
	switch {
	case len(args) == 0:
		return "", true
	case len(args) == 2 && (args[0] == "--root" || args[0] == "-root") && args[1] != "":
		return args[1], true
	case len(args) == 1 && strings.HasPrefix(args[0], "--root=") && args[0] != "--root=":
		return strings.TrimPrefix(args[0], "--root="), true
	}
	// an empty --root is a mistake the command line reports
	return "", false
}
