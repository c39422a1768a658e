// Package autostart opens the app when the user logs in, through each
// platform's own mechanism: an XDG autostart entry on Linux, a LaunchAgent
// in ~/Library/LaunchAgents on macOS, a value of the Run key in the user's
// registry on Windows. It changes the current user's login only, never
// the machine's, and needs no administrator.
package autostart

// Login is the app's entry among the programs the user's login starts.
type Login struct {
	// Name names the entry: the XDG entry's and the LaunchAgent's file
	// name (and the agent's label), the Run value's name.
	Name string
	// Exec is the absolute path of the program to start.
	Exec string
	// Dir, when set, replaces the platform's place for the entry: the
	// folder of the XDG entry or the LaunchAgent, the registry key
	// (under HKEY_CURRENT_USER) of the Run value. Tests set it.
	Dir string
}
