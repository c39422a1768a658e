package ui

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandboxdesk/ipc"
)

// No Go phrasing reaches the line a person reads; each says what failed
// and what to do.
func TestFailureIsWordedForPeople(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		want  string
		never string
	}{
		{"a timeout", context.DeadlineExceeded, "Start agent-1: the controller did not answer within 30 seconds. It may be busy", "deadline exceeded"},
		{"a missing program", &exec.Error{Name: "xdg-open", Err: exec.ErrNotFound}, "Open the workspace: this system has no xdg-open to do it. Install one, or do it by hand.", "exec:"},
		{"a lost connection", ipc.Errorf(ipc.ErrUnavailable, "the controller closed the connection: EOF"), "lost the controller. Wait a moment and try again", "EOF"},
		{"the controller's own words", ipc.Errorf(ipc.ErrInvalid, "memory must be 1 GiB to 64 GiB"), "Memory must be 1 GiB to 64 GiB.", ""},
		{"anything else", errors.New("disk full"), "failed: Disk full.", ""},
	} {
		what := "Start agent-1"
		if strings.Contains(tc.want, "workspace") {
			what = "Open the workspace"
		}
		p := failure(what, tc.err)
		if !strings.Contains(p.line, tc.want) || (tc.never != "" && strings.Contains(p.line, tc.never)) {
			t.Errorf("%s: %q", tc.name, p.line)
		}
	}
}

func TestTerminalIsTitledWithTheSandbox(t *testing.T) {
	none := func(string) (string, error) { return "", exec.ErrNotFound }
	found := func(p string) (string, error) { return "/usr/bin/" + p, nil }
	args := []string{"/opt/sandboxdesk", "shell", "agent-1", "--root", "/home/me/sd"}
	for _, tc := range []struct {
		goos   string
		look   func(string) (string, error)
		prefix []string
	}{
		{"linux", found, []string{"x-terminal-emulator", "-T", "sandboxdesk: agent-1", "-e", "/opt/sandboxdesk"}},
		{"linux", none, []string{"xterm", "-T", "sandboxdesk: agent-1", "-e", "/opt/sandboxdesk"}},
		{"windows", none, []string{"cmd.exe", "/c", "start", "sandboxdesk: agent-1", "/opt/sandboxdesk"}},
	} {
		got := terminalCommand(tc.goos, "sandboxdesk: agent-1", args, tc.look).Args
		if strings.Join(got[:len(tc.prefix)], "|") != strings.Join(tc.prefix, "|") {
			t.Errorf("%s: %q", tc.goos, got)
		}
	}
	mac := strings.Join(terminalCommand("darwin", "sandboxdesk: agent-1", args, none).Args, " ")
	if !strings.Contains(mac, `set custom title of front window to "sandboxdesk: agent-1"`) {
		t.Errorf("darwin: %s", mac)
	}
}

func TestCommandLineBesideTheApp(t *testing.T) {
	tests := []struct {
		app     string
		present []string
		want    string
	}{
		{"/opt/sandboxdesk/bin/sandboxdesk-app", []string{"/opt/sandboxdesk/bin/sandboxdesk"}, "/opt/sandboxdesk/bin/sandboxdesk"},
		{"/opt/sandboxdesk/bin/sandboxdesk-app", nil, "/opt/sandboxdesk/bin/sandboxdesk-app"},
		{"/opt/sandboxdesk/sandboxdesk-app.exe", []string{"/opt/sandboxdesk/sandboxdesk.exe"}, "/opt/sandboxdesk/sandboxdesk.exe"},
		{"/usr/bin/sandboxdesk", []string{"/usr/bin/sandboxdesk"}, "/usr/bin/sandboxdesk"},
	}
	for _, tt := range tests {
		exists := func(p string) bool {
			for _, q := range tt.present {
				if filepath.FromSlash(q) == p {
					return true
				}
			}
			return false
		}
		if got := commandLine(filepath.FromSlash(tt.app), exists); got != filepath.FromSlash(tt.want) {
			t.Errorf("commandLine(%q) = %q, want %q", tt.app, got, tt.want)
		}
	}
}
