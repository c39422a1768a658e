package sandboxes

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/units"
)

// The kinds of error a caller can act on, checked with errors.Is.
var (
	ErrInvalid     = ipc.ErrInvalid // bad input: nothing changed
	ErrNotFound    = ipc.ErrNotFound
	ErrConflict    = ipc.ErrConflict // e.g. exec in a sandbox that is not running
	ErrUnavailable = ipc.ErrUnavailable
	ErrExhausted   = ipc.ErrExhausted
)

// MiB and GiB are sizes for a Shape.
func MiB(n int64) units.Size { return units.Size(n) * units.MiB }

// GiB is n gibibytes.
func GiB(n int64) units.Size { return units.Size(n) * units.GiB }

// Config says which controller to use.
type Config struct {
	// Root is the root folder; "" is $SANDBOXDESK_ROOT, else the per-user
	// default the app and the CLI use.
	Root string
	// Prefix separates one fleet from another: "ci" names sandboxes
	// ci-NAME, and List and RemoveAll see only that fleet.
	Prefix string
	// Exe is the sandboxdesk program that starts a controller when none
	// runs; "" finds it on PATH.
	Exe string
	// Notices gets a line when a controller is started; nil is stderr.
	Notices io.Writer
}

// Client is a connection to the controller of one root, for one prefix.
// It is safe for concurrent use; each call opens its own connection.
type Client struct {
	c      ipc.Client
	root   string
	prefix string
}

// Open reaches the controller of a root, starting one if none runs.
func Open(ctx context.Context, cfg Config) (*Client, error) {
	root, err := rules.ResolveRoot(cfg.Root)
	if err != nil {
		return nil, err
	}
	c, err := Connect(ctx, Controller{Root: root, Exe: cfg.Exe, Notices: cfg.Notices})
	if err != nil {
		return nil, err
	}
	return &Client{c: c, root: root, prefix: cfg.Prefix}, nil
}

// Root is the root folder this client's controller owns.
func (c *Client) Root() string { return c.root }

// Hello is the controller's protocol version and what it offers.
func (c *Client) Hello(ctx context.Context) (ipc.Hello, error) {
	var h ipc.Hello
	err := c.c.Call(ctx, ipc.HelloRequest{Client: "go"}, &h)
	return h, err
}

// Shape is what a caller asks of a sandbox. A zero field is unset: a
// capacity any sandbox meets, no ceiling, or the default at start.
type Shape struct {
	Image   string
	Backend string
	// Capacities: a sandbox that holds at least this much is reused.
	Memory units.Size
	CPUs   int
	Disk   units.Size
	// Ceilings: a sandbox entitled to more is rebuilt.
	IdleTimeout time.Duration
	MaxLifetime time.Duration
	// StopGrace is how long Stop waits after asking processes to end.
	StopGrace time.Duration
	// Network is "on" (outbound only, the default), "off" (none) or
	// "host" (the host's own network, its loopback services included).
	Network string
	// Replace removes the sandbox and its workspace first and builds
	// clean. It is an action, never remembered.
	Replace bool
}

func (s Shape) request(prefix, name string) ipc.CreateRequest {
	req := ipc.CreateRequest{Name: name, Prefix: prefix, Image: s.Image, Backend: s.Backend,
		Network: s.Network, Replace: s.Replace,
		IdleTimeoutMs: ms(s.IdleTimeout), MaxLifetimeMs: ms(s.MaxLifetime), StopGraceMs: ms(s.StopGrace)}
	if s.Memory != 0 {
		// round up: a request of 1.5 MiB must not be served by 1 MiB
		v := int64((s.Memory + units.MiB - 1) / units.MiB)
		req.MemoryMiB = &v
	}
	if s.CPUs != 0 {
		req.CPUs = &s.CPUs
	}
	if s.Disk != 0 {
		v := int64((s.Disk + units.MiB - 1) / units.MiB)
		req.DiskMiB = &v
	}
	return req
}

func ms(d time.Duration) *int64 {
	if d == 0 {
		return nil
	}
	v := d.Milliseconds()
	if v == 0 {
		v = 1 // under a millisecond is still a ceiling, not none
	}
	return &v
}

// Create returns the sandbox of that name when its shape still serves,
// started; otherwise it rebuilds it, keeping its workspace (or, with
// Replace, not). It waits while the sandbox is queued for a slot;
// cancelling ctx calls the create off.
func (c *Client) Create(ctx context.Context, name string, shape Shape) (*Sandbox, error) {
	var sb ipc.Sandbox
	if err := c.c.Call(ctx, shape.request(c.prefix, name), &sb); err != nil {
		return nil, fmt.Errorf("create sandbox %s: %w", name, err)
	}
	return &Sandbox{Sandbox: sb, c: c}, nil
}

// Get returns the sandbox of that name as it is, without starting it.
func (c *Client) Get(ctx context.Context, name string) (*Sandbox, error) {
	sb := &Sandbox{Sandbox: ipc.Sandbox{Name: name, Prefix: c.prefix}, c: c}
	if _, err := sb.Inspect(ctx); err != nil {
		return nil, err
	}
	return sb, nil
}

// List returns the sandboxes of this root and prefix.
func (c *Client) List(ctx context.Context) ([]ipc.Sandbox, error) {
	var list []ipc.Sandbox
	if err := c.c.Call(ctx, ipc.ListRequest{Prefix: c.prefix}, &list); err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	return list, nil
}

// Remove removes a sandbox and its workspace, and reports whether there
// was anything to remove. Removing what is gone is not an error.
func (c *Client) Remove(ctx context.Context, name string) (bool, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveRequest{Prefix: c.prefix, Names: []string{name}}, &rep); err != nil {
		return false, fmt.Errorf("remove sandbox %s: %w", name, err)
	}
	return slices.Contains(rep.Removed, name), nil
}

// RemoveAll removes every sandbox of this root and prefix, with their
// workspaces, and returns the names it removed.
func (c *Client) RemoveAll(ctx context.Context) ([]string, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveRequest{Prefix: c.prefix, All: true}, &rep); err != nil {
		return nil, fmt.Errorf("remove every sandbox: %w", err)
	}
	return rep.Removed, nil
}

// Subscribe streams the controller's events (of every prefix) until ctx
// ends; the channel is closed then, or when the controller goes away.
func (c *Client) Subscribe(ctx context.Context) (<-chan ipc.Event, error) {
	events, err := c.c.Subscribe(ctx)
	if err != nil {
		return nil, fmt.Errorf("subscribe to events: %w", err)
	}
	return events, nil
}
