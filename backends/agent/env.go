package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// systemPath is where a sandbox's own system keeps its programs, after
// the folders the person installs into.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// goRoot is where the official Go distribution unpacks; on PATH when the
// sandbox has it.
const goRoot = "/usr/local/go/bin"

// commandEnv is the environment every command starts from: base (what the
// backend set: who the user is, the trust store) with a PATH and package
// manager settings that make what a person installs land in the home,
// since the system folders are read-only in a sandbox. A value base
// already holds is kept. isDir says whether a folder exists inside.
//
// PATH puts the home's folders first (pip's and npm's ~/.local/bin, Go's
// ~/go/bin, rustup's ~/.cargo/bin), whether or not they exist yet: the
// agent sets PATH once, and an install made by one command must be found
// by the next.
func commandEnv(base []string, isDir func(string) bool) []string {
	env := append([]string(nil), base...)
	home := lookupEnv(env, "HOME")
	set := func(k, v string) {
		if lookupEnv(env, k) == "" {
			env = append(env, k+"="+v)
		}
	}
	var path []string
	if home != "" && home != "/" {
		path = append(path, home+"/.local/bin", home+"/go/bin", home+"/.cargo/bin")
		// npm -g installs into ~/.local/lib/node_modules, its commands
		// into ~/.local/bin
		set("NPM_CONFIG_PREFIX", home+"/.local")
	}
	if isDir(goRoot) {
		path = append(path, goRoot)
	}
	set("PATH", strings.Join(append(path, systemPath), ":"))
	// Debian marks its Python as managed by apt (PEP 668), so pip refuses
	// any install; with this it installs, and since site-packages is
	// read-only it installs into the home (~/.local) on its own. PIP_USER
	// is not set: it would make pip refuse every install in a venv.
	set("PIP_BREAK_SYSTEM_PACKAGES", "1")
	return env
}

// lookupEnv is the value of key in env, the last one winning as in
// exec.Cmd.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// errNotFound is how a command missing from PATH is reported.
var errNotFound = errors.New("command not found")

// lookPath finds file as a shell does, in path: the PATH the command gets
// (the request's own when it sets one), not the agent's. A relative
// folder in path is relative to dir, where the command starts.
func lookPath(file, path, dir string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(dir, p)
			p = "./" + p
		}
		if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errNotFound
}
