package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"sandboxdesk/controller"
	"sandboxdesk/ipc"
)

// startWait bounds how long the CLI waits for a controller it started.
const startWait = 30 * time.Second

// rootPath resolves --root (or its defaults).
func (e *env) rootPath() (string, error) { return controller.ResolveRoot(e.root) }

// connect returns a client of the controller that owns the root, starting
// `sandboxdesk serve` for it, detached, when none answers.
func (e *env) connect(ctx context.Context) (ipc.Client, error) {
	root, err := e.rootPath()
	if err != nil {
		return nil, err
	}
	c := &ipc.SocketClient{Path: ipc.SocketPath(root)}
	if answers(ctx, c) {
		return c, nil
	}
	if pid, err := controller.LockHolder(root); err == nil && pid > 0 {
		// a controller that holds the root but does not answer is stopping
		// (quit, or a signal), or just starting: wait for either
		fmt.Fprintf(e.Err, "sandboxdesk: the controller for %s (pid %d) does not answer yet (stopping or starting); waiting for it\n", root, pid)
		if err := waitReleased(ctx, e.Err, root, quitWait, func() bool { return answers(ctx, c) }); err != nil {
			return nil, err
		}
		if answers(ctx, c) {
			return c, nil
		}
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("create root %s: %w", root, err)
	}
	logPath := filepath.Join(root, "serve.log")
	pid, exited, err := startServe(root, logPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.Err, "sandboxdesk: no controller was running for %s; started one (pid %d, log %s)\n", root, pid, logPath)
	deadline := time.Now().Add(startWait)
	for time.Now().Before(deadline) {
		if answers(ctx, c) {
			return c, nil
		}
		select {
		case <-exited:
			// another CLI may have started one at the same moment: ours
			// lost the root's lock and left, and theirs is about to answer
			exited = nil
			if d := time.Now().Add(10 * time.Second); d.Before(deadline) {
				deadline = d
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if exited == nil {
		return nil, ipc.Errorf(ipc.ErrUnavailable, "the controller for %s did not start: %s", root, lastLine(logPath))
	}
	return nil, ipc.Errorf(ipc.ErrUnavailable, "the controller for %s did not answer within %v (see %s)", root, startWait, logPath)
}

// existing returns a client of a running controller, or nil: for commands
// that must not start one (quit).
func (e *env) existing(ctx context.Context) (ipc.Client, string, error) {
	root, err := e.rootPath()
	if err != nil {
		return nil, "", err
	}
	c := &ipc.SocketClient{Path: ipc.SocketPath(root)}
	if !answers(ctx, c) {
		return nil, root, nil
	}
	return c, root, nil
}

func answers(ctx context.Context, c ipc.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var st ipc.Status
	return c.Call(ctx, ipc.StatusRequest{}, &st) == nil
}

// startServe starts `sandboxdesk serve --root root` in its own session,
// with its output in logPath.
func startServe(root, logPath string) (int, <-chan struct{}, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, nil, fmt.Errorf("find sandboxdesk to start a controller: %w", err)
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, nil, fmt.Errorf("start a controller: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "serve", "--root", root)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("start a controller: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return cmd.Process.Pid, exited, nil
}

func lastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "it exited without saying why"
}

// exitFor maps an error from the controller to an exit status: bad input
// is a usage error (2), anything else a failed operation (1).
func exitFor(err error) error {
	if errors.Is(err, ipc.ErrInvalid) {
		return &usageError{msg: err.Error()}
	}
	return err
}
