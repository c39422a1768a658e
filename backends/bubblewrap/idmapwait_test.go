//go:build linux

package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// userNS starts a shell in a user and mount namespace of its own, whose
// ids nobody has mapped yet, running script; its stdin is returned.
func userNS(t *testing.T, script string) (*exec.Cmd, *os.File) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--user", "--mount", "--", "/bin/sh", "-c", script)
	cmd.Stdin = r
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	r.Close()
	t.Cleanup(func() {
		w.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	// unshare has made the namespaces once it runs the shell
	for i := 0; ; i++ {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid))
		if strings.TrimSpace(string(comm)) == "sh" {
			break
		}
		if i == 2000 {
			t.Fatalf("unshare did not start its shell: %s", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	return cmd, w
}

// TestIDMapsAwaitedAsTheSandboxMounts: the wait for a sandbox's id maps
// returns once they are written and the sandbox makes its first mount,
// as bwrap's child does.
func TestIDMapsAwaitedAsTheSandboxMounts(t *testing.T) {
	cmd, in := userNS(t, `read x; mount -t tmpfs none /tmp; read x`)
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- awaitIDMaps(context.Background(), pid) }()
	select {
	case err := <-done:
		t.Fatalf("awaitIDMaps returned before the ids were mapped: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	for _, f := range []struct{ name, line string }{
		{"setgroups", "deny"},
		{"uid_map", fmt.Sprintf("0 %d 1", os.Geteuid())},
		{"gid_map", fmt.Sprintf("0 %d 1", os.Getegid())},
	} {
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/%s", pid, f.name), []byte(f.line+"\n"), 0); err != nil {
			t.Fatalf("write %s: %v", f.name, err)
		}
	}
	in.Write([]byte("go\n"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestIDMapsWaitEndsWithTheSandbox: a sandbox that ends before it maps
// its ids ends the wait at once, not at the deadline.
func TestIDMapsWaitEndsWithTheSandbox(t *testing.T) {
	cmd, in := userNS(t, `read x`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- awaitIDMaps(ctx, cmd.Process.Pid) }()
	in.Close()
	err := <-done
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("awaitIDMaps = %v, want the sandbox's end", err)
	}
}
