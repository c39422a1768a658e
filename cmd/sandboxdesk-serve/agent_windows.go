package main

// runAgent: on Windows the agent does not run inside this binary (a WSL
// distro runs commands through wsl.exe).
func runAgent([]string) (int, bool) { return 0, false }
