package sandboxes

import (
	"context"
	"io"
	"syscall"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/stream"
)

// Sandbox is one sandbox, as its last Create, Stop or Inspect saw it.
// Its fields are not refreshed on their own: call Inspect.
type Sandbox struct {
	ipc.Sandbox
	c *Client
}

// Cmd is a command to run in a sandbox.
type Cmd struct {
	Args []string // the program and its arguments; required
	Env  []string // KEY=VALUE, on top of the sandbox's environment
	Dir  string   // "" is /workspace
	// Stdin is the command's input; nil is none (it reads EOF at once).
	Stdin          io.Reader
	Stdout, Stderr io.Writer // nil discards
	// Signals are passed on to the command as they come.
	Signals <-chan syscall.Signal
	// Grace is how long a command interrupted by its context has to exit
	// before it is killed; 0 is 10 seconds.
	Grace time.Duration
	// TTY runs the command on a terminal of this size (a shell), its
	// output all on Stdout; nil runs it on pipes.
	TTY *stream.Size
	// Resizes are the terminal's new sizes as they come (with TTY).
	Resizes <-chan stream.Size
}

// defaultGrace is how long an interrupted command has, as Ctrl-C then a
// patient person would give it.
const defaultGrace = 10 * time.Second

// Exec runs a command in the sandbox, which must be running, and returns
// its exit status (128+N for a command killed by signal N). Ending ctx is
// Ctrl-C: the command gets SIGINT and, if it has not exited after
// cmd.Grace, is killed; Exec then returns the status it had, if any, with
// ctx's error.
func (b *Sandbox) Exec(ctx context.Context, cmd Cmd) (int, error) {
	if len(cmd.Args) == 0 {
		return -1, ipc.Errorf(ipc.ErrInvalid, "exec in %s: no command given", b.Name)
	}
	if err := ctx.Err(); err != nil {
		return -1, opError("exec in "+b.Name, err) // nothing started
	}
	grace := cmd.Grace
	if grace <= 0 {
		grace = defaultGrace
	}
	// the stream lives on past ctx, for the grace: hanging up kills
	streamCtx, hangUp := context.WithCancel(context.WithoutCancel(ctx))
	defer hangUp()
	sigs := make(chan syscall.Signal, 4)
	done := make(chan struct{})
	defer close(done)
	go forwardSignals(ctx, cmd.Signals, sigs, grace, hangUp, done)
	req := ipc.ExecRequest{Ref: b.ref(), Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, TTY: cmd.TTY}
	code, err := b.c.c.Exec(streamCtx, req, stream.IO{Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, Signals: sigs, Resizes: cmd.Resizes})
	if ctx.Err() != nil {
		return code, opError("exec in "+b.Name, ctx.Err())
	}
	if err != nil {
		return code, opError("exec in "+b.Name, err)
	}
	return code, nil
}

// forwardSignals passes the caller's signals on, turns the end of ctx
// into SIGINT, and hangs up if the command outlives its grace.
func forwardSignals(ctx context.Context, in <-chan syscall.Signal, out chan<- syscall.Signal, grace time.Duration, hangUp func(), done <-chan struct{}) {
	ctxDone := ctx.Done()
	var kill <-chan time.Time
	for {
		select {
		case s, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			select {
			case out <- s:
			case <-done:
				return
			}
		case <-ctxDone:
			ctxDone = nil
			select {
			case out <- syscall.SIGINT:
			case <-done:
				return
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			kill = t.C
		case <-kill:
			hangUp()
			return
		case <-done:
			return
		}
	}
}

// Stop stops the sandbox gracefully, keeping it and its workspace: the
// next Create of its name starts it again.
func (b *Sandbox) Stop(ctx context.Context) error {
	var sb ipc.Sandbox
	if err := b.c.c.Call(ctx, ipc.StopRequest{Ref: b.ref()}, &sb); err != nil {
		return opError("stop sandbox "+b.Name, err)
	}
	b.Sandbox = sb
	return nil
}

// Inspect fetches the sandbox as it is now.
func (b *Sandbox) Inspect(ctx context.Context) (ipc.Sandbox, error) {
	var sb ipc.Sandbox
	if err := b.c.c.Call(ctx, ipc.InspectRequest{Ref: b.ref()}, &sb); err != nil {
		return ipc.Sandbox{}, opError("inspect sandbox "+b.Name, err)
	}
	b.Sandbox = sb
	return sb, nil
}

func (b *Sandbox) ref() ipc.Ref { return ipc.Ref{Prefix: b.c.prefix, Name: b.Name} }
