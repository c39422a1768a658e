package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// appPath is the desktop app beside this executable (links resolved).
func appPath() (string, error) {
	p, dir, err := beside(appName)
	if err != nil {
		return "", fmt.Errorf("find the desktop app: %w", err)
	}
	if p == "" {
		return "", fmt.Errorf("the desktop app %s is not beside this command in %s (make build puts both in bin/); the subcommands work without it: sandboxdesk help", exeName(appName), dir)
	}
	return p, nil
}

// servePath is the controller program beside this executable (links
// resolved).
func servePath() (string, error) {
	p, dir, err := beside(serveName)
	if err != nil {
		return "", fmt.Errorf("find the controller program: %w", err)
	}
	if p == "" {
		return "", fmt.Errorf("the controller program %s is not beside this command in %s (make build puts both in bin/)", exeName(serveName), dir)
	}
	return p, nil
}

// beside is the program name in this executable's folder, links
// resolved, so a link in PATH finds the real folder; "" and that folder
// when it is not there.
func beside(name string) (path, dir string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir = filepath.Dir(exe)
	p := filepath.Join(dir, exeName(name))
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return "", dir, nil
	}
	return p, dir, nil
}

// exeName is a program's file name on this platform.
func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
