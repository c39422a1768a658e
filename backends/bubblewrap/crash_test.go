//go:build linux

package bubblewrap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/controller"
	"sandboxdesk/ipc"
)

const childRootEnv = "SANDBOXDESK_TEST_CONTROLLER_ROOT"

func openController(ctx context.Context, root string) (*controller.Controller, error) {
	b, err := New(Config{Root: root, Agent: os.Args[0]})
	if err != nil {
		return nil, err
	}
	return controller.Open(ctx, controller.Options{Root: root, Backends: map[string]controller.Backend{Name: b}, DefaultBackend: Name})
}

// runChildController is a controller process that makes a sandbox with a
// background process and a workspace file, says so, and waits to be
// killed.
func runChildController(root string) int {
	ctx := context.Background()
	c, err := openController(ctx, root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := c.Create(ctx, ipc.CreateRequest{Name: "w", MemoryMiB: ptr(int64(256))}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code, err := c.Exec(ctx, ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"sh", "-c", "echo precious > /workspace/work.txt; sleep 300 &"}})
	if err != nil || code != 0 {
		fmt.Fprintln(os.Stderr, "exec:", code, err)
		return 1
	}
	fmt.Println("ready")
	select {}
}

func ptr[T any](v T) *T { return &v }

// newController is a controller with this backend over a fresh root,
// stopped gracefully when the test ends.
func newController(t *testing.T) (*controller.Controller, string) {
	t.Helper()
	newRig(t) // skips where bwrap is missing
	root := t.TempDir()
	c, err := openController(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	return c, root
}

// childControllerKilled runs a controller process over root that makes
// sandbox w (a background process, a workspace file), then SIGKILLs it.
func childControllerKilled(t *testing.T, root string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRootEnv+"="+root)
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("child controller said %q", line)
	}
}

func TestControllerKilledSandboxAdopted(t *testing.T) {
	newRig(t) // skips where bwrap is missing
	root := t.TempDir()
	childControllerKilled(t, root)
	if n := bwrapsUnder(root); n == 0 {
		t.Fatal("the sandbox died with its controller")
	}
	if n := natsUnder(root); n != 1 {
		t.Fatalf("%d NAT helpers after the crash, want the sandbox's one", n)
	}

	c, err := openController(t.Context(), root)
	if err != nil {
		t.Fatalf("a new controller over the dead one's root: %v", err)
	}
	defer c.Close()
	sb, err := c.Inspect(t.Context(), ipc.Ref{Name: "w"})
	if err != nil || sb.State != ipc.StateRunning {
		t.Fatalf("after the crash: %+v, %v; want w adopted as running", sb, err)
	}
	var out bytes.Buffer
	code, err := c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"sh", "-c", "pgrep -x sleep >/dev/null && cat /workspace/work.txt"}, Stdout: &out})
	if err != nil || code != 0 || out.String() != "precious\n" {
		t.Errorf("exec in the adopted sandbox: %d, %v, %q", code, err, out.String())
	}
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := bwrapsUnder(root); n != 0 {
		t.Errorf("%d bwrap processes of this root left after shutdown", n)
	}
	if n := natsUnder(root); n != 0 {
		t.Errorf("%d NAT helpers of this root left after shutdown", n)
	}
	if b, err := os.ReadFile(filepath.Join(root, "workspaces", "w", "work.txt")); err != nil || string(b) != "precious\n" {
		t.Errorf("workspace after crash and shutdown: %q, %v", b, err)
	}
}

func TestOOMReachesControllerEvents(t *testing.T) {
	c, _ := newController(t)
	events, stop := c.Subscribe()
	defer stop()
	sb, err := c.Create(t.Context(), ipc.CreateRequest{Name: "hog", MemoryMiB: ptr(int64(256))})
	if err != nil {
		t.Fatal(err)
	}
	if sb.MemoryLimitMiB == 0 {
		t.Skip("no cgroup with a memory controller here: the limit is reported as not enforced")
	}
	code, _ := c.Exec(t.Context(), ipc.Ref{Name: "hog"}, backends.ExecRequest{Args: []string{"sh", "-c", `x=$(head -c 629145600 /dev/zero | tr '\0' a)`}})
	if code == 0 {
		t.Fatal("the hog survived its limit")
	}
	for ev := range events {
		if ev.Kind == ipc.EventNotice && ev.Sandbox == "hog" && strings.Contains(ev.Message, "out of memory") {
			return
		}
	}
}

func TestRemoveDoesNotFollowSandboxSymlinks(t *testing.T) {
	c, root := newController(t)
	hostFile := filepath.Join(t.TempDir(), "host.txt")
	os.WriteFile(hostFile, []byte("host data"), 0o644)
	os.Chmod(filepath.Dir(hostFile), 0o755)
	if _, err := c.Create(t.Context(), ipc.CreateRequest{Name: "w"}); err != nil {
		t.Fatal(err)
	}
	// the sandbox plants links to a host path it cannot see itself
	script := "ln -s " + hostFile + " /workspace/link; ln -s " + filepath.Dir(hostFile) + " /workspace/dirlink; ln -s / ~/rootlink"
	if code, err := c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"sh", "-c", script}}); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	if removed, err := c.Remove(t.Context(), ipc.Ref{Name: "w"}); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if b, err := os.ReadFile(hostFile); err != nil || string(b) != "host data" {
		t.Errorf("remove followed a link planted in the workspace: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "workspaces", "w")); !os.IsNotExist(err) {
		t.Errorf("workspace still there: %v", err)
	}
}
