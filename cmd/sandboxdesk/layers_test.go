package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The packages' layers, as the package docs describe them. Each rule is
// checked for every platform the app ships on, since a platform file
// (pipe_windows.go, backends_darwin.go) can break one alone.
var (
	layerPlatforms = []string{"linux", "darwin", "windows"}

	// what a package must never link, even indirectly
	neverLinks = []struct {
		pkgs  []string
		never []string // import paths, or prefixes ending in "/"
		why   string
	}{
		{
			pkgs:  []string{"sandboxdesk/controller", "sandboxdesk/ipc"},
			never: []string{"sandboxdesk/wire", "github.com/Microsoft/go-winio"},
			why:   "the controller and the vocabulary speak no transport",
		},
		{
			pkgs:  []string{"sandboxdesk/cli", "sandboxdesk/ui", "sandboxdesk/sandboxes"},
			never: []string{"sandboxdesk/controller", "sandboxdesk/daemon", "sandboxdesk/backends", "sandboxdesk/backends/", "github.com/mattn/go-sqlite3"},
			why:   "clients reach a controller through a client, never by linking one",
		},
		{
			pkgs:  []string{"sandboxdesk/cmd/sandboxdesk"},
			never: []string{"sandboxdesk/controller", "sandboxdesk/daemon", "sandboxdesk/backends", "sandboxdesk/backends/", "github.com/mattn/go-sqlite3", "fyne.io/", "github.com/go-gl/"},
			why:   "the command line is a client, started for every command: serve runs in sandboxdesk-serve",
		},
		{
			pkgs:  []string{"sandboxdesk/rules"},
			never: []string{"sandboxdesk/controller", "sandboxdesk/backends", "sandboxdesk/backends/", "sandboxdesk/wire", "github.com/mattn/go-sqlite3"},
			why:   "the rules are pure: no state, no backend, no transport",
		},
	}

	// who may import the controller: the daemon builds it, and the bench
	// measures it directly; tests are not listed by go list -deps
	controllerImporters = map[string]bool{
		"sandboxdesk/daemon":      true,
		"sandboxdesk/bench/table": true,
	}
)

// goList runs go list for goos with cgo on (it compiles nothing, so no C
// compiler for that platform is needed) and returns its lines.
func goList(t *testing.T, goos string, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: cannot list dependencies")
	}
	cmd := exec.Command(gobin, append([]string{"list", "-e"}, args...)...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOOS=%s go list %s: %v\n%s", goos, strings.Join(args, " "), err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestLayersLinkOnlyDownward(t *testing.T) {
	for _, goos := range layerPlatforms {
		for _, rule := range neverLinks {
			for _, pkg := range rule.pkgs {
				for _, dep := range goList(t, goos, "-deps", pkg) {
					for _, never := range rule.never {
						if dep == never || (strings.HasSuffix(never, "/") && strings.HasPrefix(dep, never)) {
							t.Errorf("%s on %s links %s: %s", pkg, goos, dep, rule.why)
						}
					}
				}
			}
		}
	}
}

func TestOnlyTheDaemonImportsTheController(t *testing.T) {
	for _, goos := range layerPlatforms {
		for _, line := range goList(t, goos, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "sandboxdesk/...") {
			pkg, imports, _ := strings.Cut(line, " ")
			for _, imp := range strings.Fields(imports) {
				if imp == "sandboxdesk/controller" && !controllerImporters[pkg] {
					t.Errorf("%s imports the controller on %s: only the daemon builds one; ask it for a client", pkg, goos)
				}
			}
		}
	}
}

// TestCommandLineLinksNoCgo: the command line builds with CGO_ENABLED=0,
// a static binary that starts without the dynamic loader. The standard
// library's cgo files (net's resolver, os/user) have pure Go twins that
// CGO_ENABLED=0 builds; any other package's do not, or not the same.
func TestCommandLineLinksNoCgo(t *testing.T) {
	for _, goos := range layerPlatforms {
		for _, line := range goList(t, goos, "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", "sandboxdesk/cmd/sandboxdesk") {
			f := strings.Fields(line)
			if len(f) == 3 && f[1] == "false" && f[2] != "0" {
				t.Errorf("sandboxdesk/cmd/sandboxdesk on %s links %s, which uses cgo: the command line is built with CGO_ENABLED=0", goos, f[0])
			}
		}
	}
}
