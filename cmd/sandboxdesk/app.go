package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// appPath is the desktop app beside this executable (links resolved).
func appPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the desktop app: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	name := appName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(exe), name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the desktop app %s is not beside this command in %s (make build puts both in bin/); the subcommands work without it: sandboxdesk help", name, filepath.Dir(exe))
	}
	return p, nil
}
