package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sandboxdesk/rootlock"
)

var serveCommand = command{
	summary: "run the controller for a root without a window (for servers and CI)",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			root, err := e.rootPath()
			if err != nil {
				return err
			}
			if e.Serve == nil {
				return errors.New("this program runs no controller: use the sandboxdesk command, or the app")
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return e.Serve(ctx, root, slog.New(slog.NewTextHandler(e.Err, nil)))
		}
	},
}

var quitCommand = command{
	summary: "stop the controller of a root, and its sandboxes, gracefully",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			root, err := e.rootPath()
			if err != nil {
				return err
			}
			sbx, err := e.existing(ctx)
			if err != nil {
				return err
			}
			// the lock finds a controller whose socket is gone or silent
			pid, err := rootlock.Holder(root)
			if err != nil {
				return err
			}
			switch {
			case sbx != nil:
				if st, err := sbx.Status(ctx); err == nil && st.Pid > 0 {
					pid = st.Pid
				}
				if err := sbx.Quit(ctx); err != nil {
					return exitFor(err)
				}
			case pid == 0:
				fmt.Fprintf(e.Out, "no controller is running for %s\n", root)
				return nil
			default:
				fmt.Fprintf(e.Err, "sandboxdesk: the controller for %s (pid %d) does not answer on its socket; asking it to stop\n", root, pid)
				if err := terminate(pid); err != nil {
					return fmt.Errorf("stop the controller for %s (pid %d): %w", root, pid, err)
				}
			}
			fmt.Fprintf(e.Err, "sandboxdesk: stopping the controller for %s (pid %d) and its sandboxes...\n", root, pid)
			if err := waitReleased(ctx, e.Err, root, quitWait, nil); err != nil {
				return err
			}
			fmt.Fprintf(e.Out, "stopped the controller for %s\n", root)
			return nil
		}
	},
}

// quitWait bounds how long quit waits for a controller to stop its
// sandboxes (each gets its stop grace).
const quitWait = 3 * time.Minute

// waitReleased waits until no controller holds root's lock: then its
// sandboxes are stopped and its state written. A line on w every 10 s says
// it is still waiting. answers, when given, ends the wait early: the
// holder was starting, not stopping, and now answers.
func waitReleased(ctx context.Context, w io.Writer, root string, limit time.Duration, answers func() bool) error {
	start := time.Now()
	next := start.Add(10 * time.Second)
	for {
		pid, err := rootlock.Holder(root)
		if err != nil {
			return err
		}
		if pid == 0 || (answers != nil && answers()) {
			return nil
		}
		now := time.Now()
		if now.Sub(start) > limit {
			return fmt.Errorf("the controller for %s (pid %d) is still stopping its sandboxes after %v", root, pid, limit)
		}
		if now.After(next) {
			fmt.Fprintf(w, "sandboxdesk: still stopping (%v)...\n", now.Sub(start).Round(time.Second))
			next = next.Add(10 * time.Second)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
