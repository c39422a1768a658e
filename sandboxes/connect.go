package sandboxes

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/rootlock"
	"sandboxdesk/wire"
)

// startWait bounds how long Connect waits for a controller it started.
const startWait = 30 * time.Second

// Controller says how to reach the controller of a root, and how to start
// one when none answers.
type Controller struct {
	// Root is the resolved root folder.
	Root string
	// Exe is the sandboxdesk program that runs `serve`; "" finds
	// "sandboxdesk" on PATH. Starting is the program's job, not this
	// package's, so a client never runs sandboxes in its own process.
	Exe string
	// Notices gets one line when a controller is started; nil is stderr.
	Notices io.Writer
}

// Connect returns a client of the controller that owns the root, starting
// `sandboxdesk serve` for it, detached, when none answers. It is how the
// CLI reaches a controller too.
func Connect(ctx context.Context, ctl Controller) (ipc.Client, error) {
	root := ctl.Root
	c := &wire.SocketClient{Path: wire.SocketPath(root)}
	// every command of the CLI starts here: a dial, not a round trip, is
	// enough to know the request that follows has a controller to answer
	notices := ctl.Notices
	if notices == nil {
		notices = os.Stderr
	}
	if c.Listening(ctx) {
		return &watched{Client: c, root: root, notices: notices}, nil
	}
	if ok, err := awaitHolder(ctx, c, root, notices); ok || err != nil {
		return c, err
	}
	exe, err := ctl.exe()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("create root %s: %w", root, err)
	}
	logPath := filepath.Join(root, "serve.log")
	pid, exited, err := startServe(exe, root, logPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(notices, "sandboxdesk: no controller was running for %s; started one (pid %d, log %s)\n", root, pid, logPath)
	deadline := time.Now().Add(startWait)
	for time.Now().Before(deadline) {
		if Answers(ctx, c) {
			return c, nil
		}
		select {
		case <-exited:
			// another client may have started one at the same moment: ours
			// lost the root's lock and left, and theirs is about to answer;
			// with the lock free, ours left for a reason of its own (no
			// controller program, say), which its log's last line gives
			exited = nil
			if pid, err := rootlock.Holder(root); err == nil && pid == 0 && !Answers(ctx, c) {
				return nil, ipc.Errorf(ipc.ErrUnavailable, "the controller for %s did not start: %s", root, lastLine(logPath))
			}
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

// holderWait bounds the wait for a controller that holds the root but
// does not answer: one stopping its sandboxes, each with its stop grace.
const holderWait = 3 * time.Minute

// awaitHolder waits while a controller holds root's lock without answering
// on its socket (it is stopping, after quit or a signal, or just starting):
// starting another then would only lose the lock and fail after a wait.
// It reports whether the holder came to answer; false with no error means
// the root is free.
func awaitHolder(ctx context.Context, c ipc.Client, root string, notices io.Writer) (bool, error) {
	pid, err := rootlock.Holder(root)
	if err != nil || pid == 0 {
		return false, nil // no lock to read: try to start one, which says why not
	}
	fmt.Fprintf(notices, "sandboxdesk: the controller for %s (pid %d) does not answer yet (stopping or starting); waiting for it\n", root, pid)
	for deadline := time.Now().Add(holderWait); time.Now().Before(deadline); {
		if Answers(ctx, c) {
			return true, nil
		}
		if pid, err := rootlock.Holder(root); err == nil && pid == 0 {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false, ipc.Errorf(ipc.ErrUnavailable, "the controller for %s (pid %d) holds the root but has not answered for %v", root, pid, holderWait)
}

func (ctl Controller) exe() (string, error) {
	if ctl.Exe != "" {
		return ctl.Exe, nil
	}
	exe, err := exec.LookPath("sandboxdesk")
	if err != nil {
		return "", ipc.Errorf(ipc.ErrUnavailable, "no controller is running for %s and sandboxdesk is not on PATH to start one: %v", ctl.Root, err)
	}
	return exe, nil
}

// silenceNotice is how long a request waits before its client checks
// that the controller answers at all.
var silenceNotice = 5 * time.Second

// watched is a client found by a dial alone, which the socket of a
// controller stopped with Ctrl-Z (or wedged) still accepts: when a
// request has had no answer for silenceNotice and a status gets none
// either, it says so, once, and goes on waiting.
type watched struct {
	ipc.Client
	root    string
	notices io.Writer
}

func (w *watched) Call(ctx context.Context, req ipc.Request, out any) error {
	var mu sync.Mutex
	answered := false
	t := time.AfterFunc(silenceNotice, func() {
		if Answers(ctx, w.Client) {
			return // busy with this request, not silent
		}
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			fmt.Fprintf(w.notices, "sandboxdesk: the controller for %s has not answered for %v (stopped with Ctrl-Z, or stuck?); still waiting, Ctrl-C gives up\n", w.root, silenceNotice)
		}
	})
	err := w.Client.Call(ctx, req, out)
	t.Stop()
	mu.Lock()
	answered = true
	mu.Unlock()
	return err
}

// Answers reports whether a controller answers on c.
func Answers(ctx context.Context, c ipc.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var st ipc.Status
	return c.Call(ctx, ipc.StatusRequest{}, &st) == nil
}

// startServe starts `exe serve --root root` in its own session, with its
// output in logPath.
func startServe(exe, root, logPath string) (int, <-chan struct{}, error) {
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
