package wsl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"sandboxdesk/backends"
)

// Exec runs a command in the sandbox's distro as the sandbox user, with
// its streams, its exit status and Ctrl-C passed on.
func (b *Backend) Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error) {
	if len(req.Args) == 0 {
		return -1, errors.New("exec: no command given")
	}
	name, err := distroName(b.cfg.Root, id)
	if err != nil {
		return -1, err
	}
	if !b.running(id) {
		return -1, backends.ErrNotRunning
	}
	env, err := wslEnv(os.Environ(), req.Env)
	if err != nil {
		return -1, fmt.Errorf("exec: %w", err)
	}
	cmd := exec.CommandContext(ctx, b.cfg.WSL, execArgs(name, User, req.Dir, req.Args)...)
	cmd.Env = env
	hideWindow(cmd)
	if req.TTY != nil {
		return runTTY(cmd, req)
	}
	return runPiped(cmd, req)
}

// runPiped runs cmd with pipes. Stdin is copied by a goroutine of our
// own: exec.Cmd would wait for a reader that may never end (a person's
// terminal) after the command has exited.
func runPiped(cmd *exec.Cmd, req backends.ExecRequest) (int, error) {
	cmd.Stdout, cmd.Stderr = orDiscard(req.Stdout), orDiscard(req.Stderr)
	var stdin io.WriteCloser
	if req.Stdin != nil {
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			return -1, fmt.Errorf("exec: %w", err)
		}
	}
	newGroup(cmd)
	if err := cmd.Start(); err != nil {
		return -1, classify("exec", nil, err)
	}
	if stdin != nil {
		go func() { io.Copy(stdin, req.Stdin); stdin.Close() }()
	}
	stop := forwardSignals(cmd, req.Signals)
	err := cmd.Wait()
	stop()
	return exitStatus(err)
}

func exitStatus(err error) (int, error) {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if code := exit.ExitCode(); code >= 0 {
			return code, nil
		}
		return 128 + signalNumber(exit), nil
	}
	if err != nil {
		return -1, fmt.Errorf("exec: %w", err)
	}
	return 0, nil
}

// forwardSignals passes the caller's signals (Ctrl-C) on to wsl.exe,
// which hands them to the command, until the returned function is called.
func forwardSignals(cmd *exec.Cmd, signals <-chan syscall.Signal) func() {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case s, ok := <-signals:
				if !ok {
					return
				}
				signalProcess(cmd.Process, s)
			}
		}
	}()
	return func() { close(done) }
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
