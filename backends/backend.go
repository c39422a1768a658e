// Package backends holds the vocabulary shared by the controller and every
// sandbox provider: what a provider is asked to build (Spec), what it can
// do (Capabilities), and what it reports (Observed). The providers
// themselves live in the packages below this one, one per provider; the
// controller declares the interface it needs from them.
package backends

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"sandboxdesk/rules"
	"sandboxdesk/stream"
)

// Kind tells the fixed ranges apart: a VM reserves its memory, host
// processes only run under a limit. The kinds are declared with the
// ranges they select (package rules); these names keep a backend's
// Capabilities readable without importing the rules.
type Kind = rules.Kind

const (
	KindVM      = rules.KindVM
	KindProcess = rules.KindProcess
)

// Image is one image a backend can start sandboxes from. Its identity is
// its name and its content digest: re-importing a name with other content
// is another image.
type Image struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
	// Description is a few words for a person ("this machine's tools").
	Description string `json:"description,omitempty"`
}

// Capabilities tells the controller what a backend can do, so it never has
// to ask which backend it is talking to.
type Capabilities struct {
	// Kind says whether the backend reserves memory (a VM) or only limits
	// host processes; the controller reads what a start really did from
	// Started, so no other memory flag is needed.
	Kind Kind
	// Checkpoints: a stopped sandbox may keep a checkpoint that makes the
	// next start warm.
	Checkpoints bool
	// DefaultImage is used when a sandbox names none.
	DefaultImage string
}

// Spec is what the controller asks a backend to run.
type Spec struct {
	ID   string // unique, never reused; names the backend's own objects
	Name string // the sandbox's full name (with its fleet prefix); the hostname
	Root string // the controller's root, marked on everything the backend makes

	Image Image
	// MemoryMiB is the memory the controller decided for this start: the
	// sandbox's own value, else the Settings default, else its share of
	// the budget. Never 0; the backend builds (or limits) with exactly it.
	MemoryMiB int64
	// CPUs and DiskMiB are likewise resolved by the controller.
	CPUs    int
	DiskMiB int64
	// Pids is the sandbox's own limit on processes and threads, 0 for the
	// backend's default.
	Pids    int64
	Network Network
	// NestedUserns lets the sandbox make user namespaces of its own
	// (rootless containers, browser sandboxes); off, the seccomp filter
	// denies them.
	NestedUserns bool

	// Workspace is the host folder bound at /workspace; it outlives the
	// sandbox's ID. StateDir is the sandbox's own folder (home, installed
	// tools), removed with the ID.
	Workspace string
	StateDir  string
}

// Network is how a sandbox reaches the network.
type Network string

const (
	// NetworkOn is outbound only: the sandbox has a network of its own
	// behind a NAT, and cannot reach the host's loopback, its abstract
	// sockets or another sandbox.
	NetworkOn Network = "on"
	// NetworkOff is no network at all: only the sandbox's own loopback.
	NetworkOff Network = "off"
	// NetworkHost shares the host's network, loopback services included;
	// only when a person asks for it.
	NetworkHost Network = "host"
)

// ParseNetwork reads a network setting; "" is the default, on.
func ParseNetwork(s string) (Network, error) {
	switch n := Network(s); n {
	case "":
		return NetworkOn, nil
	case NetworkOn, NetworkOff, NetworkHost:
		return n, nil
	}
	return "", fmt.Errorf("network %q: use on (outbound only), off (none) or host (the host's own network, loopback included)", s)
}

// Started is what a backend really did at start.
type Started struct {
	// ReservedMiB is the memory the sandbox was really built with and holds
	// while it runs; 0 when the backend reserves nothing.
	ReservedMiB int64
	// MemoryLimitMiB is the limit the backend enforces on host processes;
	// 0 when none could be enforced.
	MemoryLimitMiB int64
	// PidsLimit is the limit on processes and threads the backend
	// enforces; 0 when none is.
	PidsLimit int64
	// DiskLimitMiB is the size the sandbox's writable folders cannot grow
	// past; 0 when the disk is not limited.
	DiskLimitMiB int64
	// Accel is how a VM's processor runs: "kvm" (the host's hardware
	// virtualisation) or "tcg" (software emulation, many times slower);
	// "" for a sandbox that is not a VM.
	Accel string
}

// Stopped says how a sandbox stopped.
type Stopped struct {
	// Checkpointed: the backend kept a checkpoint; the sandbox is suspended.
	Checkpointed bool
}

// Observed is one thing a backend finds running that belongs to this root.
type Observed struct {
	ID      string
	Running bool
	// ReservedMiB and MemoryLimitMiB are what a running sandbox holds, as
	// in Started; 0 when the backend cannot tell.
	ReservedMiB, MemoryLimitMiB int64
	// Accel is how a running VM runs, as in Started.
	Accel string
}

// ExecRequest is a command to run inside a sandbox.
type ExecRequest struct {
	Args   []string
	Env    []string
	Dir    string // inside the sandbox; /workspace when empty
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Signals are passed on to the command's process group (Ctrl-C).
	Signals <-chan syscall.Signal
	// TTY, when set, runs the command on a terminal of that size;
	// Resizes then carries the size's changes.
	TTY     *stream.Size
	Resizes <-chan stream.Size
	// HandOver, when set, may take the backend's connection to the
	// command once the command is asked for (see stream.IO).
	HandOver func(ctx context.Context, conn net.Conn) (handed bool, code int, err error)
}

// Errors a backend returns, checked with errors.Is.
var (
	ErrNotRunning   = errors.New("sandbox is not running")
	ErrNotFound     = errors.New("sandbox not found")
	ErrUnknownImage = errors.New("unknown image")
)

// InvalidError is an exec the sandbox refused as bad input (a folder
// that is not there): the caller's mistake, said in Message.
type InvalidError struct{ Message string }

func (e *InvalidError) Error() string { return e.Message }

// Event is something a backend noticed on its own (an OOM kill, a crash),
// reported to the controller through the Notify function it is given.
type Event struct {
	ID      string
	Message string
	// Exited: the sandbox is gone and should be marked stopped.
	Exited bool
	// OOMKills and PidsLimitHits count what a limit did since the last
	// event: processes killed for want of memory, forks refused.
	OOMKills      int
	PidsLimitHits int
	Time          time.Time
}

// Notify receives a backend's own events.
type Notify func(context.Context, Event)
