// Package daemon runs a controller the way the app and `sandboxdesk serve`
// do: with this platform's backends, its socket in the root, and its
// sweeps, until it is asked to quit or signalled. It is the one place
// that builds a controller and knows which backends a platform has: the
// app and the command line get a client from it (ipc.Client), never the
// controller itself.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/controller"
	"sandboxdesk/ipc"
	"sandboxdesk/wire"
)

// BackendEnv picks another backend than the platform's: "testvm" runs the
// VM-like test backend, for trying the app (and taking screenshots) where
// no real backend works.
const BackendEnv = "SANDBOXDESK_BACKEND"

// sweepEvery is how often idle and expired sandboxes are looked for.
const sweepEvery = 15 * time.Second

// Daemon is the controller of one root, taken and not yet served, or
// serving.
type Daemon struct {
	c *controller.Controller
}

// Open takes ownership of root with this platform's backends. A root
// another process holds is an ipc.ErrConflict.
func Open(ctx context.Context, root string, log *slog.Logger) (*Daemon, error) {
	var bs map[string]controller.Backend
	var def string
	var err error
	if os.Getenv(BackendEnv) == testvm.Name {
		var vm *testvm.Backend
		vm, err = testvm.New(filepath.Join(root, "testvm"), testvm.Config{})
		bs, def = map[string]controller.Backend{testvm.Name: vm}, testvm.Name
	} else {
		bs, def, err = platformBackends(root)
	}
	if err != nil {
		return nil, err
	}
	c, err := controller.Open(ctx, controller.Options{Root: root, Backends: bs, DefaultBackend: def, Logger: log})
	if err != nil {
		return nil, err
	}
	return &Daemon{c: c}, nil
}

// Client is an in-process client of d's controller, served until ctx
// ends: the desktop app's, which needs no socket to reach its own
// controller. Quit is not its to ask: the app quits by ending Serve.
func (d *Daemon) Client(ctx context.Context) ipc.Client {
	return wire.NewLocal(ctx, &controller.Service{C: d.c})
}

// Events follows d's controller from now until it closes, past the end
// of any client: the app hears how its quit goes after its own client
// ended with the quit.
func (d *Daemon) Events() <-chan ipc.Event {
	events, _ := d.c.Subscribe() // ends when the controller closes
	return events
}

// Close gives the root up without serving it. It stops nothing: the
// sandboxes running stay so, for the next controller to adopt.
func (d *Daemon) Close() error { return d.c.Close() }

// Run is `sandboxdesk serve`: it takes root and serves it until ctx ends
// or a client asks it to quit.
func Run(ctx context.Context, root string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	d, err := Open(ctx, root, log)
	if err != nil {
		return err
	}
	log.Info("serving", "root", root, "pid", os.Getpid(), "socket", wire.SocketPath(root))
	err = Serve(ctx, d, log)
	log.Info("stopped", "root", root)
	return err
}

// Serve runs d's socket and sweeps until ctx ends or a client asks it to
// quit, then stops every sandbox gracefully and gives the root up. Once
// the socket is up it restores the sandboxes that ran when the controller
// last stopped (DESIGN 3.2: all marked starting, then booted).
func Serve(ctx context.Context, d *Daemon, log *slog.Logger) error {
	c := d.c
	if log == nil {
		log = slog.Default()
	}
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	l, err := wire.Listen(wire.SocketPath(c.Root()))
	if err != nil {
		c.Close()
		return err
	}
	restored := make(chan struct{})
	go func() {
		defer close(restored)
		if err := c.Restore(ctx); err != nil {
			log.Warn("restore the sandboxes that ran before", "err", err)
		}
	}()
	go c.RunSweeps(ctx, sweepEvery)
	if err := watchImages(ctx, c); err != nil {
		log.Warn("new images will show after a restart", "err", err)
	}
	srv := &wire.Server{Handler: &controller.Service{C: c, Quit: quit}, Log: log}
	serveErr := srv.Serve(ctx, l)
	os.Remove(wire.SocketPath(c.Root()))
	// a restore waiting for a slot is called off by ctx; one booting
	// finishes, and is then stopped (and marked to restore) below
	<-restored
	// the sandboxes get their stop grace even though the serve context
	// has ended
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil {
		return errors.Join(serveErr, fmt.Errorf("stop sandboxes: %w", err))
	}
	return serveErr
}
