// Package testvm is a sandbox backend that behaves like a VM backend
// without a hypervisor: it reserves the memory it is given, can keep
// checkpoints, and can be told to fail or to be slow. Commands run as host
// processes in the sandbox's workspace folder. It is a real implementation
// of the controller's Backend interface, kept for tests of every rule that
// does not need real isolation, and for trying the app on a machine with no
// working backend.
//
// What it runs is recorded in a file under its folder, so a second
// instance over the same folder (a controller restarted after a crash)
// observes the "VMs" the first one left running.
package testvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"sandboxdesk/backends"
)

// Name is the backend's name in requests and records.
const Name = "testvm"

// DefaultImages are the images a new Backend offers.
var DefaultImages = []backends.Image{
	{Name: "base", Digest: "sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef", Description: "a small Linux"},
	{Name: "python", Digest: "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", Description: "Linux with Python"},
}

// Backend is the VM-like test backend.
type Backend struct {
	dir string

	mu          sync.Mutex
	checkpoints bool
	processes   bool
	accel       string
	images      []backends.Image
	failStart   error
	startDelay  time.Duration
	state       state
	starts      int
	gate        *gate
	onStart     func(backends.Spec)
}

// gate holds starts until n of them wait at once.
type gate struct {
	n       int
	waiting int
	open    chan struct{}
}

// vm is one running "VM".
type vm struct {
	ReservedMiB int64  `json:"reservedMiB"`
	Workspace   string `json:"workspace"`
	Checkpoint  bool   `json:"checkpoint"`
	Running     bool   `json:"running"`
}

type state struct {
	VMs map[string]*vm `json:"vms"`
}

// Config says what the backend pretends to be.
type Config struct {
	// Checkpoints: stopping keeps a checkpoint (the sandbox is suspended).
	Checkpoints bool
	// Processes: behave like host processes under a limit (memory may go
	// down to 64 MiB, nothing is reserved) instead of a VM.
	Processes bool
	// Accel is how the "VM" says it runs ("tcg", "kvm"); "" says nothing.
	Accel string
}

// New returns a backend keeping its records in dir.
func New(dir string, cfg Config) (*Backend, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("testvm: %w", err)
	}
	b := &Backend{dir: dir, checkpoints: cfg.Checkpoints, processes: cfg.Processes, accel: cfg.Accel, images: append([]backends.Image(nil), DefaultImages...), state: state{VMs: map[string]*vm{}}}
	data, err := os.ReadFile(b.file())
	if err == nil {
		if err := json.Unmarshal(data, &b.state); err != nil {
			return nil, fmt.Errorf("testvm: read %s: %w", b.file(), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("testvm: %w", err)
	}
	if b.state.VMs == nil {
		b.state.VMs = map[string]*vm{}
	}
	return b, nil
}

func (b *Backend) file() string { return filepath.Join(b.dir, "testvm.json") }

func (b *Backend) saveLocked() error {
	data, err := json.Marshal(b.state)
	if err != nil {
		return err
	}
	tmp := b.file() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, b.file())
}

// FailStarts makes every start fail with err until called with nil.
func (b *Backend) FailStarts(err error) { b.mu.Lock(); b.failStart = err; b.mu.Unlock() }

// SlowStarts makes every start take d (or until its context ends).
func (b *Backend) SlowStarts(d time.Duration) { b.mu.Lock(); b.startDelay = d; b.mu.Unlock() }

// GateStarts holds every start until n starts are in flight at the same
// time, then lets them all go. A caller that serializes its starts never
// gets n in flight, and each start then fails when its context ends: a
// deterministic test of parallelism, with no timing in it.
func (b *Backend) GateStarts(n int) {
	b.mu.Lock()
	b.gate = &gate{n: n, open: make(chan struct{})}
	b.mu.Unlock()
}

func (b *Backend) passGate(ctx context.Context) error {
	b.mu.Lock()
	g := b.gate
	if g == nil {
		b.mu.Unlock()
		return nil
	}
	g.waiting++
	if g.waiting == g.n {
		close(g.open)
	}
	b.mu.Unlock()
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		arrived := g.waiting
		b.mu.Unlock()
		return fmt.Errorf("testvm: only %d of %d starts arrived together: %w", arrived, g.n, ctx.Err())
	}
}

// OnStart calls fn at the beginning of every start, before the "VM"
// boots: a test sees what the controller has marked by then.
func (b *Backend) OnStart(fn func(backends.Spec)) { b.mu.Lock(); b.onStart = fn; b.mu.Unlock() }

// SetImages replaces the images offered.
func (b *Backend) SetImages(imgs []backends.Image) { b.mu.Lock(); b.images = imgs; b.mu.Unlock() }

// Starts counts the starts that reached the backend.
func (b *Backend) Starts() int { b.mu.Lock(); defer b.mu.Unlock(); return b.starts }

// Reserved is what a running sandbox holds, 0 when it is not running.
func (b *Backend) Reserved(id string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v := b.state.VMs[id]; v != nil && v.Running {
		return v.ReservedMiB
	}
	return 0
}

// Capabilities: a VM that reserves memory, and checkpoints if told to.
func (b *Backend) Capabilities() backends.Capabilities {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.processes {
		return backends.Capabilities{Kind: backends.KindProcess, Checkpoints: b.checkpoints, DefaultImage: "base"}
	}
	return backends.Capabilities{Kind: backends.KindVM, Checkpoints: b.checkpoints, DefaultImage: "base"}
}

// Images lists the images offered.
func (b *Backend) Images(context.Context) ([]backends.Image, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backends.Image(nil), b.images...), nil
}

// Start "boots" the VM with the memory the controller decided.
func (b *Backend) Start(ctx context.Context, spec backends.Spec) (backends.Started, error) {
	b.mu.Lock()
	fail, delay, hook := b.failStart, b.startDelay, b.onStart
	b.starts++
	b.mu.Unlock()
	if hook != nil {
		hook(spec)
	}
	if err := b.passGate(ctx); err != nil {
		return backends.Started{}, err
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return backends.Started{}, ctx.Err()
		}
	}
	if fail != nil {
		return backends.Started{}, fail
	}
	mem := spec.MemoryMiB
	if mem <= 0 {
		return backends.Started{}, fmt.Errorf("testvm: no memory given for %s", spec.Name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state.VMs[spec.ID] = &vm{ReservedMiB: mem, Workspace: spec.Workspace, Running: true}
	if err := b.saveLocked(); err != nil {
		return backends.Started{}, err
	}
	if b.processes {
		return backends.Started{MemoryLimitMiB: mem}, nil
	}
	return backends.Started{ReservedMiB: mem, Accel: b.accel}, nil
}

// Stop "shuts down" the VM, keeping a checkpoint when the backend
// checkpoints.
func (b *Backend) Stop(_ context.Context, id string, _ time.Duration) (backends.Stopped, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := b.state.VMs[id]
	if v == nil || !v.Running {
		return backends.Stopped{}, nil
	}
	v.Running, v.ReservedMiB = false, 0
	v.Checkpoint = b.checkpoints
	return backends.Stopped{Checkpointed: v.Checkpoint}, b.saveLocked()
}

// DropCheckpoint forgets a stopped VM's checkpoint.
func (b *Backend) DropCheckpoint(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v := b.state.VMs[id]; v != nil {
		v.Checkpoint = false
	}
	return b.saveLocked()
}

// HasCheckpoint reports whether a VM holds a checkpoint.
func (b *Backend) HasCheckpoint(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := b.state.VMs[id]
	return v != nil && v.Checkpoint
}

// Exec runs the command as a host process in the workspace.
func (b *Backend) Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error) {
	b.mu.Lock()
	v := b.state.VMs[id]
	running := v != nil && v.Running
	b.mu.Unlock()
	if !running {
		return -1, backends.ErrNotRunning
	}
	cmd := exec.CommandContext(ctx, req.Args[0], req.Args[1:]...)
	cmd.Dir = v.Workspace
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Stdout, cmd.Stderr = req.Stdout, req.Stderr
	// as the real agent does: the command's end ends the exec, even when
	// the caller's stdin stays open (exec.Cmd would wait for its copier)
	var err error
	if req.Stdin != nil {
		pr, pw, perr := os.Pipe()
		if perr != nil {
			return -1, fmt.Errorf("testvm: stdin pipe: %w", perr)
		}
		cmd.Stdin = pr
		go func() { io.Copy(pw, req.Stdin); pw.Close() }()
		defer pw.Close()
		err = cmd.Start()
		pr.Close()
		if err == nil {
			err = cmd.Wait()
		}
	} else {
		err = cmd.Run()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return -1, fmt.Errorf("testvm: run %s: %w", req.Args[0], err)
	}
	return 0, nil
}

// Remove forgets the VM.
func (b *Backend) Remove(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.state.VMs, id)
	return b.saveLocked()
}

// Observe lists the VMs this backend's folder knows.
func (b *Backend) Observe(context.Context) ([]backends.Observed, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backends.Observed
	for id, v := range b.state.VMs {
		o := backends.Observed{ID: id, Running: v.Running}
		if v.Running && b.processes {
			o.MemoryLimitMiB = v.ReservedMiB
		} else if v.Running {
			o.ReservedMiB, o.Accel = v.ReservedMiB, b.accel
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
