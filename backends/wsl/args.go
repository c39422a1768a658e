package wsl

import (
	"fmt"
	"sort"
	"strings"
)

// The command lines the backend gives wsl.exe, kept as pure functions so
// tests pin them here and the fake wsl.exe reads exactly these.

func listArgs() []string { return []string{"--list", "--verbose"} }

func importArgs(distro, dir, tarball string) []string {
	return []string{"--import", distro, dir, tarball, "--version", "2"}
}

func terminateArgs(distro string) []string { return []string{"--terminate", distro} }

func unregisterArgs(distro string) []string { return []string{"--unregister", distro} }

// execArgs runs argv in distro as user, in dir. --exec runs the program
// itself, with no shell between that would read the arguments again.
func execArgs(distro, user, dir string, argv []string) []string {
	if dir == "" {
		dir = "/workspace"
	}
	return append([]string{"-d", distro, "-u", user, "--cd", dir, "--exec"}, argv...)
}

// holdArgs keeps the distro running: WSL stops a distro a few seconds
// after its last process ends, and with it the workspace mount and every
// background process the sandbox started.
func holdArgs(distro string) []string {
	return execArgs(distro, "root", "/", []string{"/bin/sleep", "2147483647"})
}

// askEndArgs asks every process of the distro to end (SIGTERM to all but
// init). Run as root inside the distro, it reaches only that distro's
// processes: each distro has its own pid namespace.
func askEndArgs(distro string) []string {
	return execArgs(distro, "root", "/", []string{"/bin/kill", "-s", "TERM", "-1"})
}

// wslEnv is the environment wsl.exe is started with so that it passes
// env on into the distro: WSLENV lists the variables to carry, each
// with /u (from Windows to Linux only). Names must be plain identifiers,
// and a variable already listed by the user's own WSLENV is not doubled.
func wslEnv(base, env []string) ([]string, error) {
	var names []string
	vars := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !isIdent(k) {
			return nil, fmt.Errorf("environment entry %q: want NAME=VALUE with a plain name", kv)
		}
		if _, seen := vars[k]; !seen {
			names = append(names, k)
		}
		vars[k] = v
	}
	sort.Strings(names)
	out := make([]string, 0, len(base)+len(env)+1)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := vars[k]; ours || strings.EqualFold(k, "WSLENV") {
			continue
		}
		out = append(out, kv)
	}
	list := make([]string, len(names))
	for i, k := range names {
		out = append(out, k+"="+vars[k])
		list[i] = k + "/u"
	}
	if len(list) > 0 {
		out = append(out, "WSLENV="+strings.Join(list, ":"))
	}
	return out, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
