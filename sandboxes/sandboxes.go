package sandboxes

import (
	"context"
	"io"
	"slices"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/units"
	"sandboxdesk/wire"
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
	// StopGrace is how long Stop waits after asking processes to end;
	// 0 is the default (10 s), and NoGrace kills at once.
	StopGrace time.Duration
	// Pids is the most processes and threads the sandbox may run at
	// once; 0 is the backend's default.
	Pids int
	// NestedUserns lets processes inside make user namespaces of their
	// own (rootless containers). Off by default: it opens more of the
	// kernel to the sandbox.
	NestedUserns bool
	// Network is "on" (outbound only, the default), "off" (none) or
	// "host" (the host's own network, its loopback services included).
	Network string
	// Replace removes the sandbox and its workspace first and builds
	// clean. It is an action, never remembered.
	Replace bool
}

// NoGrace is a StopGrace of none: Stop kills the sandbox's processes at
// once.
const NoGrace time.Duration = -1

func (s Shape) request(prefix, name string) ipc.CreateRequest {
	req := ipc.CreateRequest{Name: name, Prefix: prefix, Image: s.Image, Backend: s.Backend,
		Network: s.Network, NestedUserns: s.NestedUserns, Replace: s.Replace,
		IdleTimeoutMs: ms(s.IdleTimeout), MaxLifetimeMs: ms(s.MaxLifetime), StopGraceMs: ms(s.StopGrace)}
	if s.StopGrace == NoGrace {
		none := int64(0)
		req.StopGraceMs = &none
	}
	if s.Pids != 0 {
		v := int64(s.Pids)
		req.Pids = &v
	}
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
	if d <= 0 {
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
		return nil, opError("create sandbox "+name, err)
	}
	return &Sandbox{Sandbox: sb, c: c}, nil
}

// Sandbox is a handle on the sandbox of that name, made without asking
// the controller anything: its other fields are empty until Inspect, and
// a name with no sandbox behind it fails at its first call.
func (c *Client) Sandbox(name string) *Sandbox {
	return &Sandbox{Sandbox: ipc.Sandbox{Name: name, Prefix: c.prefix}, c: c}
}

// Get returns the sandbox of that name as it is, without starting it.
func (c *Client) Get(ctx context.Context, name string) (*Sandbox, error) {
	sb := c.Sandbox(name)
	if _, err := sb.Inspect(ctx); err != nil {
		return nil, err
	}
	return sb, nil
}

// List returns the sandboxes of this root and prefix.
func (c *Client) List(ctx context.Context) ([]ipc.Sandbox, error) {
	var list []ipc.Sandbox
	if err := c.c.Call(ctx, ipc.ListRequest{Prefix: c.prefix}, &list); err != nil {
		return nil, opError("list sandboxes", err)
	}
	return list, nil
}

// Remove removes a sandbox and its workspace, and reports whether there
// was anything to remove. Removing what is gone is not an error.
func (c *Client) Remove(ctx context.Context, name string) (bool, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveRequest{Prefix: c.prefix, Names: []string{name}}, &rep); err != nil {
		return false, opError("remove sandbox "+name, err)
	}
	return slices.Contains(rep.Removed, name), nil
}

// RemoveNames removes the sandboxes of those names, with their
// workspaces, in one request, and says which were there (Removed) and
// which were not (Missing).
func (c *Client) RemoveNames(ctx context.Context, names ...string) (ipc.RemoveReply, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveRequest{Prefix: c.prefix, Names: names}, &rep); err != nil {
		return ipc.RemoveReply{}, opError("remove sandboxes", err)
	}
	return rep, nil
}

// RemoveAll removes every sandbox of this root and prefix, with their
// workspaces, and returns the names it removed.
func (c *Client) RemoveAll(ctx context.Context) ([]string, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveRequest{Prefix: c.prefix, All: true}, &rep); err != nil {
		return nil, opError("remove every sandbox", err)
	}
	return rep.Removed, nil
}

// Subscribe streams the controller's events (of every prefix) until ctx
// ends; the channel is closed then, or when the controller goes away.
func (c *Client) Subscribe(ctx context.Context) (<-chan ipc.Event, error) {
	events, err := c.c.Subscribe(ctx)
	if err != nil {
		return nil, opError("subscribe to events", err)
	}
	return events, nil
}

// Running reaches the controller of a root only if one answers there; it
// starts none. A nil Client with no error means none answers: for what
// must not start a controller to find out (quit, or a question a plan
// answers as well without one).
func Running(ctx context.Context, cfg Config) (*Client, error) {
	root, err := rules.ResolveRoot(cfg.Root)
	if err != nil {
		return nil, err
	}
	c := &wire.SocketClient{Path: wire.SocketPath(root)}
	if !Answers(ctx, c) {
		return nil, nil
	}
	return &Client{c: c, root: root, prefix: cfg.Prefix}, nil
}
