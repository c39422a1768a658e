package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
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
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(e.Err, nil))
			c, err := daemon.Open(ctx, root, log)
			if err != nil {
				return err
			}
			log.Info("serving", "root", root, "pid", os.Getpid(), "socket", ipc.SocketPath(root))
			err = daemon.Serve(ctx, c, log)
			log.Info("stopped", "root", root)
			return err
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
			c, root, err := e.existing(ctx)
			if err != nil {
				return err
			}
			if c == nil {
				fmt.Fprintf(e.Out, "no controller is running for %s\n", root)
				return nil
			}
			if err := c.Call(ctx, ipc.QuitRequest{}, nil); err != nil {
				return err
			}
			// the controller stops its sandboxes first; wait until it is gone
			for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
				if !answers(ctx, c) {
					if _, statErr := os.Stat(ipc.SocketPath(root)); os.IsNotExist(statErr) {
						fmt.Fprintf(e.Out, "stopped the controller for %s\n", root)
						return nil
					}
				}
				time.Sleep(50 * time.Millisecond)
			}
			return fmt.Errorf("the controller for %s is still stopping its sandboxes", root)
		}
	},
}
