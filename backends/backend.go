// Package backends holds the vocabulary shared by the controller and every
// sandbox provider: what a provider is asked to build (Spec), what it can
// do (Capabilities), and what it reports (Observed). The providers
// themselves live in the packages below this one, one per provider; the
// controller declares the interface it needs from them.
package backends

import (
	"context"
	"errors"
	"io"
	"syscall"
	"time"

	"sandboxdesk/stream"
)

// Kind tells the fixed ranges apart: a VM reserves its memory, host
// processes only run under a limit.
type Kind string

const (
	KindVM      Kind = "vm"
	KindProcess Kind = "process"
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
	Kind Kind
	// ReservesMemory: the backend builds each sandbox with a fixed amount
	// of memory and holds it while it runs (a VM).
	ReservesMemory bool
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
	// MemoryMiB is the sandbox's own memory, 0 when it named none.
	MemoryMiB int64
	CPUs      int
	DiskMiB   int64
	// Pids is the sandbox's own limit on processes and threads, 0 for the
	// backend's default.
	Pids    int64
	Network bool
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
