package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/catalogue"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
	"sandboxdesk/rootlock"
)

// Backend is what the controller needs from a sandbox provider. Providers
// live under backends/; the controller never asks which one it has, only
// what its Capabilities say.
type Backend interface {
	Capabilities() backends.Capabilities
	// Images lists the images the backend can start sandboxes from.
	Images(ctx context.Context) ([]backends.Image, error)
	// Start builds or boots the sandbox with spec.MemoryMiB, the one
	// number the controller decided; the backend does not choose.
	Start(ctx context.Context, spec backends.Spec) (backends.Started, error)
	// Stop asks the sandbox's processes to end and kills what is left
	// after grace.
	Stop(ctx context.Context, id string, grace time.Duration) (backends.Stopped, error)
	// Exec runs a command inside a running sandbox and returns its exit
	// status.
	Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error)
	// Remove deletes what the backend made for the sandbox (it is stopped
	// first). Removing what is gone is not an error. The sandbox's folders
	// are the controller's to delete.
	Remove(ctx context.Context, id string) error
	// Observe lists what the backend finds of this root's sandboxes.
	Observe(ctx context.Context) ([]backends.Observed, error)
}

// checkpointDropper is a backend that can drop a stopped sandbox's
// checkpoint, so it cold-boots next time.
type checkpointDropper interface {
	DropCheckpoint(ctx context.Context, id string) error
}

// notifier is a backend that reports what it notices on its own.
type notifier interface{ SetNotify(backends.Notify) }

// backendEvent turns what a backend noticed (an OOM kill, a sandbox that
// died) into a stored notice for its sandbox, and a stop when it is gone.
func (c *Controller) backendEvent(ctx context.Context, e backends.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.boxes {
		if r.ID != e.ID {
			continue
		}
		ev := ipc.Event{Time: c.clock.Now(), Kind: ipc.EventNotice, Sandbox: r.FullName, ID: r.ID, State: r.State, Message: e.Message}
		// the notice and the counts stay on the sandbox, for inspect and
		// the window, not only in the event log
		cp := *r
		cp.OOMKills += e.OOMKills
		cp.PidsLimitHits += e.PidsLimitHits
		cp.LastNotice, cp.LastNoticeAt = e.Message, ev.Time
		ch := change{put: []*record{&cp}, event: ev}
		if e.Exited && r.State.Active() {
			// the reason stays on the sandbox until its next start: a stop
			// nobody asked for is what a person looks for first
			cp.State, cp.Error, cp.ReservedMiB, cp.LimitMiB, cp.Restore = ipc.StateStopped, e.Message, 0, 0, false
			cp.PidsLimit, cp.DiskLimitMiB = 0, 0
			ch = change{put: []*record{&cp}, event: c.stateEvent(&cp, e.Message)}
		}
		if err := c.commitLocked(ctx, ch); err != nil {
			c.log.Warn("record backend event", "sandbox", r.FullName, "err", err)
		}
		if e.Exited {
			c.admitNextLocked(ctx)
		}
		return
	}
}

// Clock tells the time; tests give one they move by hand.
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }

// Options configure a controller.
type Options struct {
	// Root is the folder the controller owns; created if missing.
	Root string
	// Backends by name; DefaultBackend is used when a request names none.
	Backends       map[string]Backend
	DefaultBackend string
	// Measure measures the host; host.Measure when nil.
	Measure func(ctx context.Context) (host.Info, error)
	// Clock; the system clock when nil.
	Clock Clock
	// Logger; slog's default when nil.
	Logger *slog.Logger
	// Pulls downloads images from catalogues; a default client when nil.
	Pulls *catalogue.Client
}

// Controller owns the sandboxes of one root.
type Controller struct {
	root      string
	backends  map[string]Backend
	defBack   string
	measure   func(ctx context.Context) (host.Info, error)
	clock     Clock
	log       *slog.Logger
	lock      *rootlock.Lock
	store     *store
	events    *broker
	pulls     *catalogue.Client
	closeOnce sync.Once
	// metaSyncs are the syncs of new sandbox.json files still under way
	// (see build); Close waits for them
	metaSyncs sync.WaitGroup

	mu     sync.Mutex               // guards what follows
	atOnce int                      // the "at once" limit last computed
	boxes  map[string]*record       // by full name
	queue  []*waiter                // FIFO of starts waiting for a slot
	execs  map[string]int           // running execs by id: a sandbox in use is not idle
	names  map[string]chan struct{} // one lock per full name
	// unsaved holds records changed in memory that a full disk kept out
	// of the database, by id; the next change that saves takes them along
	unsaved map[string]bool
}

// Open takes ownership of the root: the lock, the database, and a
// reconcile of what the database says with what the backends observe.
func Open(ctx context.Context, o Options) (*Controller, error) {
	if o.Root == "" {
		return nil, ipc.Errorf(ipc.ErrInvalid, "no root folder given")
	}
	if len(o.Backends) == 0 || o.Backends[o.DefaultBackend] == nil {
		return nil, fmt.Errorf("open controller: default backend %q is not among the backends", o.DefaultBackend)
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, fmt.Errorf("open controller: %w", err)
	}
	for _, dir := range []string{root, filepath.Join(root, "sandboxes"), filepath.Join(root, "workspaces")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open controller: %w", err)
		}
	}
	if err := makePrivate(root); err != nil {
		return nil, fmt.Errorf("open controller: %w", err)
	}
	lock, err := rootlock.Take(root)
	if err != nil {
		return nil, err
	}
	c := &Controller{
		root: root, backends: o.Backends, defBack: o.DefaultBackend,
		measure: o.Measure, clock: o.Clock, log: o.Logger, lock: lock,
		events: newBroker(), pulls: o.Pulls,
		boxes: map[string]*record{}, execs: map[string]int{}, names: map[string]chan struct{}{},
		unsaved: map[string]bool{},
	}
	if c.measure == nil {
		// memory is read once; CPU limits and free disk at most once a second
		c.measure = host.NewMeter(root).Measure
	}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	if c.pulls == nil {
		c.pulls = &catalogue.Client{}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	var rebuildWhy string
	c.store, rebuildWhy, err = c.openState(ctx)
	if err != nil {
		lock.Release()
		return nil, err
	}
	if err := c.rebuild(ctx, rebuildWhy); err != nil {
		c.store.close()
		lock.Release()
		return nil, err
	}
	for _, b := range c.backends {
		if n, ok := b.(notifier); ok {
			n.SetNotify(c.backendEvent)
		}
	}
	if err := c.reconcile(ctx); err != nil {
		c.store.close()
		lock.Release()
		return nil, err
	}
	c.ensureReserve()
	return c, nil
}

// Close stops nothing: sandboxes keep running and the next controller
// adopts them. Use Shutdown to stop them first.
func (c *Controller) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.metaSyncs.Wait()
		c.events.close()
		err = c.store.close()
		c.lock.Release()
	})
	return err
}

// Shutdown stops every running sandbox gracefully, then closes. The
// sandboxes it stops are marked to be restored: the next launch starts
// them again (Restore), unlike those a user stopped.
func (c *Controller) Shutdown(ctx context.Context) error {
	var errs []error
	for _, r := range c.snapshot("", true) {
		if r.State.Active() || r.State == ipc.StateQueued {
			if _, err := c.stop(ctx, ipc.Ref{Prefix: r.Prefix, Name: r.Name}, reasonShutdown); err != nil {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, c.Close())
	return errors.Join(errs...)
}

// Root is the folder this controller owns.
func (c *Controller) Root() string { return c.root }

// Subscribe returns a channel of events and a function that ends the
// subscription. A slow subscriber only delays itself, up to maxQueued
// events behind; beyond that it is sent a notice saying so and its
// channel closes: subscribe again and re-read the state.
func (c *Controller) Subscribe() (<-chan ipc.Event, func()) { return c.events.subscribe() }

// snapshot copies the records of one prefix (or all, when all is true),
// oldest first.
func (c *Controller) snapshot(prefix string, all bool) []record {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []record
	for _, r := range c.boxes {
		if all || r.Prefix == prefix {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].FullName < out[j].FullName
	})
	return out
}

// lockName serializes every operation on one sandbox name; operations on
// different names proceed in parallel.
func (c *Controller) lockName(ctx context.Context, fullName string) (func(), error) {
	ch := c.nameLock(fullName)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// nameLock is the lock of one name: a channel that holds one token.
func (c *Controller) nameLock(fullName string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.names[fullName]
	if !ok {
		ch = make(chan struct{}, 1)
		c.names[fullName] = ch
	}
	return ch
}

// tryLockName takes a name's lock only if it is free.
func (c *Controller) tryLockName(fullName string) (func(), bool) {
	ch := c.nameLock(fullName)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, true
	default:
		return nil, false
	}
}

// Notice publishes something clients should know that changes no state
// ("images changed"); fullName is "" when it is about no sandbox.
func (c *Controller) Notice(fullName, message string) {
	c.events.publish(ipc.Event{Time: c.clock.Now(), Kind: ipc.EventNotice, Sandbox: fullName, Message: message})
}

// Progress publishes a progress tick for a sandbox. Ticks change no state
// and are not stored.
func (c *Controller) Progress(fullName string, fraction float64, message string) {
	c.events.publish(ipc.Event{Time: c.clock.Now(), Kind: ipc.EventProgress, Sandbox: fullName, Progress: fraction, Message: message})
}

func (c *Controller) backendOf(r *record) (Backend, error) {
	b, ok := c.backends[r.Backend]
	if !ok {
		return nil, ipc.Errorf(ipc.ErrUnavailable, "sandbox %s uses backend %q, which this build does not have", r.FullName, r.Backend)
	}
	return b, nil
}

func (c *Controller) stateDir(id string) string { return filepath.Join(c.root, "sandboxes", id) }

func (c *Controller) workspace(fullName string) string {
	return filepath.Join(c.root, "workspaces", fullName)
}
