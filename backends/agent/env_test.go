//go:build unix

package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandboxdesk/stream"
)

func TestCommandEnv(t *testing.T) {
	withGo := func(p string) bool { return p == "/usr/local/go/bin" }
	without := func(string) bool { return false }
	base := []string{"HOME=/home/sandbox", "USER=sandbox", "SSL_CERT_FILE=/etc/sandboxdesk/ca/ssl_cert_file/corp.pem"}
	tests := []struct {
		name  string
		base  []string
		isDir func(string) bool
		want  []string // KEY=VALUE lines the result holds
		never []string // keys it must not set
	}{
		{
			name: "a sandbox with Go installed", base: base, isDir: withGo,
			want: []string{
				"PATH=/home/sandbox/.local/bin:/home/sandbox/go/bin:/home/sandbox/.cargo/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"NPM_CONFIG_PREFIX=/home/sandbox/.local", "PIP_BREAK_SYSTEM_PACKAGES=1",
				"HOME=/home/sandbox", "USER=sandbox", "SSL_CERT_FILE=/etc/sandboxdesk/ca/ssl_cert_file/corp.pem",
			},
			never: []string{"PIP_USER"},
		},
		{
			name: "no Go: its folder stays off PATH", base: base, isDir: without,
			want: []string{"PATH=/home/sandbox/.local/bin:/home/sandbox/go/bin:/home/sandbox/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		},
		{
			name: "no home: no home folders", base: []string{"USER=x"}, isDir: without,
			want:  []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "PIP_BREAK_SYSTEM_PACKAGES=1"},
			never: []string{"NPM_CONFIG_PREFIX"},
		},
		{
			name: "what the backend set wins", base: append(slices.Clone(base), "PATH=/opt/x/bin", "NPM_CONFIG_PREFIX=/opt/npm"), isDir: withGo,
			want: []string{"PATH=/opt/x/bin", "NPM_CONFIG_PREFIX=/opt/npm"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := commandEnv(tt.base, tt.isDir)
			for _, w := range tt.want {
				k, v, _ := strings.Cut(w, "=")
				if lookupEnv(got, k) != v {
					t.Errorf("%s=%q, want %q", k, lookupEnv(got, k), v)
				}
			}
			for _, k := range tt.never {
				if v := lookupEnv(got, k); v != "" {
					t.Errorf("%s is set (%q)", k, v)
				}
			}
		})
	}
}

// TestExecFindsTheCommandWithTheRequestsPath: "exec --env PATH=..." runs
// the command that PATH names, not the one the agent's own PATH finds.
func TestExecFindsTheCommandWithTheRequestsPath(t *testing.T) {
	dial := serve(t)
	dir := t.TempDir()
	tool := filepath.Join(dir, "sandboxdesk-only-here")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho found in the request PATH\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code, err := Exec(t.Context(), dial, Request{Args: []string{"sandboxdesk-only-here"}, Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}}, stream.IO{Stdout: &out})
	if err != nil || code != 0 || out.String() != "found in the request PATH\n" {
		t.Errorf("with the request's PATH: %d, %v, %q", code, err, out.String())
	}
	_, err = Exec(t.Context(), dial, Request{Args: []string{"sandboxdesk-only-here"}}, stream.IO{})
	var se *StartError
	if !asStartError(err, &se) || !strings.Contains(se.Message, "command not found") {
		t.Errorf("without it: %v, want command not found", err)
	}
	// a relative PATH entry is relative to where the command starts
	out.Reset()
	code, err = Exec(t.Context(), dial, Request{Args: []string{"sandboxdesk-only-here"}, Env: []string{"PATH=.:/usr/bin:/bin"}, Dir: dir}, stream.IO{Stdout: &out})
	if err != nil || code != 0 || out.String() != "found in the request PATH\n" {
		t.Errorf("with PATH=. in its folder: %d, %v, %q", code, err, out.String())
	}
}

// TestStartEnvIsWhatTheAgentWasGiven: the agent passes on the environment
// it was started with, not what the binary's own start-up changed.
func TestStartEnvIsWhatTheAgentWasGiven(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc/self/environ on this system")
	}
	t.Setenv("SANDBOXDESK_TEST_SET_LATE", "by the binary")
	env := startEnv()
	if v := lookupEnv(env, "SANDBOXDESK_TEST_SET_LATE"); v != "" {
		t.Errorf("a variable the process set after its start is passed on: %q", v)
	}
	if lookupEnv(env, "PATH") != os.Getenv("PATH") {
		t.Errorf("PATH %q, want the process's own %q", lookupEnv(env, "PATH"), os.Getenv("PATH"))
	}
}
