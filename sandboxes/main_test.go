package sandboxes_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/backends/agent"
	"sandboxdesk/cli"
	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/sandboxes"
	"sandboxdesk/wire"
)

// asSandboxdesk marks this test binary started as the sandboxdesk program
// (for `serve`), through a link named sandboxdesk on PATH: the examples
// then open a root exactly as a program using this package does.
const asSandboxdesk = "SANDBOXES_TEST_AS_SANDBOXDESK"

// testRootEnv names a root whose controller the tests share with the
// TypeScript and Python clients' (make clients-test); unset, they get a
// fresh root and a controller of their own.
const testRootEnv = "SANDBOXDESK_TEST_ROOT"

func TestMain(m *testing.M) {
	// inside a sandbox this binary is the agent, with no environment
	if code, ok := agent.Dispatch(os.Args[1:]); ok {
		os.Exit(code)
	}
	if os.Getenv(asSandboxdesk) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Serve: daemon.Run}))
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		fmt.Println("sandboxes: skipped, bubblewrap is not installed (apt-get install bubblewrap)")
		os.Exit(0)
	}
	os.Exit(run(m))
}

// run gives the examples a fresh default root and a sandboxdesk on PATH,
// and quits the controller they started.
func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sandboxes-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err == nil {
		err = os.Mkdir(filepath.Join(dir, "bin"), 0o755)
	}
	if err == nil {
		err = os.Symlink(self, filepath.Join(dir, "bin", "sandboxdesk"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("PATH", filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv(asSandboxdesk, "1")
	if shared := os.Getenv(testRootEnv); shared != "" {
		os.Setenv(rules.RootEnv, shared)
		return m.Run()
	}
	root := filepath.Join(dir, "root")
	os.Setenv(rules.RootEnv, root)
	defer quit(root)
	return m.Run()
}

// quit stops the controller of root, if one answers, and waits until its
// process has gone, so the root can be removed.
func quit(root string) {
	ctx := context.Background()
	c := &wire.SocketClient{Path: wire.SocketPath(root)}
	var st ipc.Status
	if c.Call(ctx, ipc.StatusRequest{}, &st) != nil || c.Call(ctx, ipc.QuitRequest{}, nil) != nil {
		return
	}
	for i := 0; i < 2400 && alive(st.Pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// startedPids reads the pids out of "started one (pid N, ...)" notices.
func startedPids(notices string) []int {
	var pids []int
	for _, m := range regexp.MustCompile(`started one \(pid (\d+)`).FindAllStringSubmatch(notices, -1) {
		pid, _ := strconv.Atoi(m[1])
		pids = append(pids, pid)
	}
	return pids
}

// TestOpenStartsOneController: clients opening a root at once, with no
// controller running, all reach the one controller that won the root.
func TestOpenStartsOneController(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	var notices syncBuffer
	// every controller started must be gone before the root is removed:
	// one that lost the race may win the root once the winner quits
	t.Cleanup(func() {
		for _, pid := range startedPids(notices.String()) {
			for alive(pid) {
				quit(root)
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	pids := make([]int, 3)
	var wg sync.WaitGroup
	for i := range pids {
		wg.Go(func() {
			c, err := sandboxes.Open(t.Context(), sandboxes.Config{Root: root, Notices: &notices})
			if err != nil {
				t.Error(err)
				return
			}
			h, err := c.Hello(t.Context())
			if err != nil || h.Protocol != ipc.ProtocolVersion {
				t.Errorf("hello: %+v, %v", h, err)
			}
			var st ipc.Status
			if err := (&wire.SocketClient{Path: wire.SocketPath(root)}).Call(t.Context(), ipc.StatusRequest{}, &st); err != nil {
				t.Error(err)
			}
			pids[i] = st.Pid
		})
	}
	wg.Wait()
	if pids[0] == 0 || pids[1] != pids[0] || pids[2] != pids[0] {
		t.Errorf("controllers answering: %v, want one", pids)
	}
	if !strings.Contains(notices.String(), "started one") {
		t.Errorf("no notice of a controller started: %q", notices.String())
	}
}

// TestOpenWithoutSandboxdesk: with no controller and no program to start
// one, Open says so instead of hanging.
func TestOpenWithoutSandboxdesk(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := sandboxes.Open(t.Context(), sandboxes.Config{Root: filepath.Join(t.TempDir(), "root")})
	if err == nil || !strings.Contains(err.Error(), "sandboxdesk is not on PATH") {
		t.Errorf("Open = %v, want a word about sandboxdesk missing", err)
	}
}

// TestOpenSaysWhyTheControllerDidNotStart: a program that fails to start
// a controller (the command line without its controller program beside
// it, say) has its last line in Open's error.
func TestOpenSaysWhyTheControllerDidNotStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in program is a shell script")
	}
	exe := filepath.Join(t.TempDir(), "sandboxdesk")
	script := "#!/bin/sh\necho 'sandboxdesk serve: the controller program sandboxdesk-serve is not beside this command' >&2\nexit 1\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := sandboxes.Open(t.Context(), sandboxes.Config{Root: filepath.Join(t.TempDir(), "root"), Exe: exe, Notices: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "did not start: sandboxdesk serve: the controller program sandboxdesk-serve is not beside this command") {
		t.Errorf("Open = %v, want the program's last line", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
