package wsl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/wsl/fakewsl"
)

// fakeWSL is this test binary copied as wsl.exe: started under that name
// it is the fake wsl.exe, so the tests need no toolchain to build one and
// run the same way under Wine.
var fakeWSL string

func TestMain(m *testing.M) {
	if b := strings.ToLower(filepath.Base(os.Args[0])); b == "wsl.exe" || b == "wsl" {
		os.Exit(fakewsl.Main(os.Args[1:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "helper" {
		os.Exit(helper(os.Args[2:]))
	}
	dir, err := os.MkdirTemp("", "fakewsl")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeWSL = filepath.Join(dir, "wsl.exe")
	if err := copyFile(fakeWSL); err != nil {
		fmt.Fprintln(os.Stderr, "copy the test binary as wsl.exe:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func copyFile(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(self)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// helper is what the tests run "inside" a sandbox: this binary again.
func helper(args []string) int {
	switch args[0] {
	case "pwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "env":
		fmt.Println(os.Getenv(args[1]))
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
	case "write":
		if err := os.WriteFile(args[1], []byte(args[2]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "leaving with", args[1])
		n, _ := strconv.Atoi(args[1])
		return n
	case "wait-int":
		return waitInterrupt()
	}
	return 0
}

type env struct {
	b     *Backend
	root  string
	home  string
	state string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{root: filepath.Join(dir, "root"), home: filepath.Join(dir, "fakewsl"), state: filepath.Join(dir, "root", "sandboxes")}
	t.Setenv("FAKEWSL_HOME", e.home)
	t.Setenv("FAKEWSL_FAIL", "")
	t.Setenv("FAKEWSL_LANG", "")
	images := filepath.Join(e.root, "images-wsl")
	os.MkdirAll(images, 0o700)
	img := tarball(t, map[string]string{"etc/": "", "etc/passwd": "root:x:0:0:root:/root:/bin/sh\n", "bin/": ""}, "etc/", "etc/passwd", "bin/")
	if err := os.WriteFile(filepath.Join(images, "base.tar"), img, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := New(Config{Root: e.root, WSL: fakeWSL, Images: images})
	if err != nil {
		t.Fatal(err)
	}
	e.b = b
	return e
}

func (e *env) spec(t *testing.T, id, name string) backends.Spec {
	t.Helper()
	ws := filepath.Join(e.root, "workspaces", name+" Zoë")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	imgs, err := e.b.Images(t.Context())
	if err != nil || len(imgs) != 1 || imgs[0].Name != "base" || !strings.HasPrefix(imgs[0].Digest, "sha256:") {
		t.Fatalf("images: %+v, %v", imgs, err)
	}
	return backends.Spec{ID: id, Name: name, Root: e.root, Image: imgs[0], Workspace: ws, StateDir: filepath.Join(e.state, id)}
}

// run execs the helper in the sandbox and returns its exit status and
// what it printed.
func (e *env) run(t *testing.T, id, stdin string, envs []string, args ...string) (int, string, string) {
	t.Helper()
	self, _ := os.Executable()
	var out, errb bytes.Buffer
	req := backends.ExecRequest{Args: append([]string{self, "helper"}, args...), Env: envs, Stdout: &out, Stderr: &errb}
	if stdin != "" {
		req.Stdin = strings.NewReader(stdin)
	}
	code, err := e.b.Exec(t.Context(), id, req)
	if err != nil {
		t.Fatalf("exec %q: %v", args, err)
	}
	return code, strings.TrimSpace(out.String()), errb.String()
}

func (e *env) observed(t *testing.T) map[string]bool {
	t.Helper()
	obs, err := e.b.Observe(t.Context())
	if err != nil {
		t.Fatalf("observe: %v", err)
	}
	out := map[string]bool{}
	for _, o := range obs {
		out[o.ID] = o.Running
	}
	return out
}

// TestScenario is a sandbox's life against the fake wsl.exe: create,
// exec with streams and status, stop, start again, remove.
func TestScenario(t *testing.T) {
	e := newEnv(t)
	if got := e.observed(t); len(got) != 0 {
		t.Fatalf("a fresh WSL observed %v", got)
	}
	spec := e.spec(t, "sb-0123456789abcdef", "dev")
	started, err := e.b.Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if started.ReservedMiB != 0 || started.MemoryLimitMiB != 0 {
		t.Errorf("WSL reserved or limited memory: %+v", started)
	}
	if got := e.observed(t); !got[spec.ID] || len(got) != 1 {
		t.Fatalf("after start observed %v", got)
	}

	if code, out, _ := e.run(t, spec.ID, "", nil, "pwd"); code != 0 || !sameDir(out, spec.Workspace) {
		t.Errorf("pwd: %d %q, want the workspace %s", code, out, spec.Workspace)
	}
	if code, _, _ := e.run(t, spec.ID, "", nil, "write", "made-inside.txt", "hello"); code != 0 {
		t.Errorf("write: %d", code)
	}
	if data, err := os.ReadFile(filepath.Join(spec.Workspace, "made-inside.txt")); err != nil || string(data) != "hello" {
		t.Errorf("the file made at /workspace is not in the workspace: %q %v", data, err)
	}
	if code, out, _ := e.run(t, spec.ID, "", []string{"GREETING=grüß dich"}, "env", "GREETING"); code != 0 || out != "grüß dich" {
		t.Errorf("env: %d %q", code, out)
	}
	if code, out, _ := e.run(t, spec.ID, "line one\nline two\n", nil, "cat"); code != 0 || out != "line one\nline two" {
		t.Errorf("cat: %d %q", code, out)
	}
	if code, _, stderr := e.run(t, spec.ID, "", nil, "exit", "3"); code != 3 || !strings.Contains(stderr, "leaving with 3") {
		t.Errorf("exit 3: %d %q", code, stderr)
	}

	if _, err := e.b.Stop(t.Context(), spec.ID, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := e.observed(t); got[spec.ID] {
		t.Errorf("after stop observed %v", got)
	}
	if _, err := e.b.Exec(t.Context(), spec.ID, backends.ExecRequest{Args: []string{"true"}}); !errors.Is(err, backends.ErrNotRunning) {
		t.Errorf("exec in a stopped sandbox: %v", err)
	}

	// a second start finds the distro and does not import it again
	if _, err := e.b.Start(t.Context(), spec); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(spec.Workspace, "made-inside.txt")); err != nil || string(data) != "hello" {
		t.Errorf("the workspace lost its file over a restart: %q %v", data, err)
	}
	if got := e.observed(t); !got[spec.ID] {
		t.Errorf("after the second start observed %v", got)
	}

	if err := e.b.Remove(t.Context(), spec.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.observed(t); len(got) != 0 {
		t.Errorf("after remove observed %v", got)
	}
	spec.Network = backends.NetworkOff
	if _, err := e.b.Start(t.Context(), spec); err == nil || !strings.Contains(err.Error(), "network off") {
		t.Errorf("network off was not refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(spec.StateDir, "distro", "rootfs")); !os.IsNotExist(err) {
		t.Errorf("the distro's files outlived unregister: %v", err)
	}
	if _, err := os.Stat(filepath.Join(spec.Workspace, "made-inside.txt")); err != nil {
		t.Errorf("remove touched the workspace, the controller's to delete: %v", err)
	}
	if err := e.b.Remove(t.Context(), spec.ID); err != nil {
		t.Errorf("removing what is gone: %v", err)
	}
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// TestRootsKeepApart: a second root on the same Windows account neither
// sees nor removes the first one's distros, nor the user's own.
func TestRootsKeepApart(t *testing.T) {
	e := newEnv(t)
	spec := e.spec(t, "sb-1", "one")
	if _, err := e.b.Start(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	defer e.b.Remove(context.Background(), spec.ID)
	other, err := New(Config{Root: e.root + "-other", WSL: fakeWSL, Images: filepath.Join(e.root, "images-wsl")})
	if err != nil {
		t.Fatal(err)
	}
	if obs, err := other.Observe(t.Context()); err != nil || len(obs) != 0 {
		t.Errorf("another root observed %+v, %v", obs, err)
	}
	if err := other.Remove(t.Context(), spec.ID); err != nil {
		t.Errorf("another root's remove of a name it does not have: %v", err)
	}
	if got := e.observed(t); !got[spec.ID] {
		t.Errorf("another root's remove reached this root's distro: %v", got)
	}
}

// TestGermanWSL: a German Windows prints other state words; the backend
// reads them the same.
func TestGermanWSL(t *testing.T) {
	e := newEnv(t)
	t.Setenv("FAKEWSL_LANG", "de")
	if got := e.observed(t); len(got) != 0 {
		t.Fatalf("German, no distros: %v", got)
	}
	spec := e.spec(t, "sb-2", "zwei")
	if _, err := e.b.Start(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	defer e.b.Remove(context.Background(), spec.ID)
	if got := e.observed(t); !got[spec.ID] {
		t.Errorf("German, running: %v", got)
	}
}

// TestBrokenWSL: each way WSL can be unusable ends a start with the
// message that names its fix, and leaves nothing behind.
func TestBrokenWSL(t *testing.T) {
	for _, tt := range []struct {
		fail string
		want error
	}{
		{"missing", ErrWSLMissing},
		{"wsl1", ErrWSL1Only},
		{"virt-off", ErrVirtualOff},
	} {
		e := newEnv(t)
		t.Setenv("FAKEWSL_FAIL", tt.fail)
		spec := e.spec(t, "sb-3", "three")
		if _, err := e.b.Start(t.Context(), spec); !errors.Is(err, tt.want) {
			t.Errorf("%s: start said %v, want %v", tt.fail, err, tt.want)
		}
		if e.b.running(spec.ID) {
			t.Errorf("%s: a failed start left the sandbox held", tt.fail)
		}
	}
	e := newEnv(t)
	e.b.cfg.WSL = filepath.Join(t.TempDir(), "wsl.exe")
	if _, err := e.b.Observe(t.Context()); !errors.Is(err, ErrWSLMissing) {
		t.Errorf("no wsl.exe: %v", err)
	}
}

// TestCtrlC: a signal the caller passes reaches the command, and its
// exit status says so.
func TestCtrlC(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake wsl.exe cannot deliver Ctrl-C on Windows: a console control event needs a shared console")
	}
	e := newEnv(t)
	spec := e.spec(t, "sb-4", "four")
	if _, err := e.b.Start(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	defer e.b.Remove(context.Background(), spec.ID)
	self, _ := os.Executable()
	pr, pw := io.Pipe()
	signals := make(chan syscall.Signal, 1)
	done := make(chan int, 1)
	go func() {
		code, err := e.b.Exec(t.Context(), spec.ID, backends.ExecRequest{Args: []string{self, "helper", "wait-int"}, Stdout: pw, Signals: signals})
		if err != nil {
			t.Error(err)
		}
		pw.Close()
		done <- code
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the command said %q", line)
	}
	go io.Copy(io.Discard, pr)
	signals <- syscall.SIGINT
	if code := <-done; code != 130 {
		t.Errorf("after Ctrl-C the command exited %d, want 130", code)
	}
}
