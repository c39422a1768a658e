package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

var executable = os.Executable

// commandLine is the program a person runs for `shell`: the command line
// shipped beside the app (sandboxdesk beside sandboxdesk-app), or the
// app itself, which also answers subcommands, where it stands alone.
func commandLine(app string, exists func(string) bool) string {
	dir, base := filepath.Split(app)
	ext := filepath.Ext(base)
	if strings.TrimSuffix(base, ext) != "sandboxdesk-app" {
		return app
	}
	if cli := filepath.Join(dir, "sandboxdesk"+ext); exists(cli) {
		return cli
	}
	return app
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// openShell opens a shell of a running sandbox, or says how to open one
// by hand.
func (u *App) openShell(name string) {
	if err := u.OpenShell(name); err != nil {
		p := failure("Open a shell in "+name, err)
		var ne *noTerminal
		if errors.As(err, &ne) {
			p = problem{line: "No terminal program was found to open a shell in " + name + ". Run this command in a terminal:",
				copyText: ne.command, detail: ne.cause}
		}
		u.showProblem("Open a shell in "+name, p)
	}
}

// noTerminal is the desktop having no terminal to open: the command to
// run by hand goes with it.
type noTerminal struct{ command, cause string }

func (e *noTerminal) Error() string { return "no terminal to open; run: " + e.command }

// terminalShell opens `sandboxdesk shell NAME` in the user's terminal, in
// a window titled with the sandbox's name.
func (u *App) terminalShell(name string) error {
	exe := "sandboxdesk"
	if p, err := executable(); err == nil {
		exe = commandLine(p, fileExists)
	}
	args := []string{exe, "shell", name, "--root", u.root}
	cmd := terminalCommand(runtime.GOOS, "sandboxdesk: "+name, args, exec.LookPath)
	if err := cmd.Start(); err != nil {
		return &noTerminal{command: shellQuote(args), cause: fmt.Sprintf("%s: %v", cmd.Path, err)}
	}
	go cmd.Wait()
	return nil
}

// terminalCommand is the command that opens a terminal titled title
// running args.
func terminalCommand(goos, title string, args []string, lookPath func(string) (string, error)) *exec.Cmd {
	switch goos {
	case "darwin":
		script := fmt.Sprintf(`tell application "Terminal"
	do script %q
	set custom title of front window to %q
end tell`, shellQuote(args), title)
		return exec.Command("osascript", "-e", script)
	case "windows":
		argv := windowsShell(title, args, lookPath)
		return exec.Command(argv[0], argv[1:]...)
	}
	term := "x-terminal-emulator"
	if _, err := lookPath(term); err != nil {
		term = "xterm"
	}
	// -T is the title for xterm and for Debian's x-terminal-emulator
	return exec.Command(term, append([]string{"-T", title, "-e"}, args...)...)
}

// shellQuote joins args for a POSIX shell.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '/' || r == '.' || r == ':' || r == '=' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
