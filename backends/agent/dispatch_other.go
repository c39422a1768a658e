//go:build !unix

package agent

// Dispatch: no platform without unix runs the agent in a program of
// sandboxdesk's (a WSL distro runs commands through wsl.exe).
func Dispatch([]string) (int, bool) { return 0, false }
