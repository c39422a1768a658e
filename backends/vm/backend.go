// Package vm is the VM sandbox backend, whatever the hypervisor: each
// sandbox is a machine booted from a guest image's kernel and initrd with
// exactly the memory the controller resolved, its workspace shared at
// /workspace and our agent (package guest) answering over one channel.
// A Driver boots and controls the machines (package qemu on Linux).
//
// Each sandbox has a folder of its own under the backend's, owned by the
// controller: the machine's record, its sockets, console log and disk. A
// controller that restarts finds the machines still running through it.
package vm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
	"sandboxdesk/backends/vm/channel"
	"sandboxdesk/backends/vm/guest"
	"sandboxdesk/stream"
)

// Name is the backend's name in requests and records.
const Name = "vm"

// ErrGone is a machine that no longer runs.
var ErrGone = errors.New("the machine is not running")

// Config says where the backend keeps its things.
type Config struct {
	// Dir holds one folder per sandbox; created if missing.
	Dir string
	// Images is the folder of guest images (see LoadImages).
	Images string
	Driver Driver
	// Arch is the architecture of the images offered (a Go name); this
	// machine's when empty. Another one runs emulated, slowly: tests boot
	// arm64 guests on amd64 this way.
	Arch string
	// BootTimeout bounds how long a guest may take to answer after boot;
	// 5 minutes when zero (software emulation on a busy host is slow).
	BootTimeout time.Duration
}

// Backend runs sandboxes as VMs.
type Backend struct {
	cfg Config

	mu       sync.Mutex
	machines map[string]*machine
	notify   backends.Notify
}

// SetNotify receives what the backend notices on its own: how a machine
// runs, and a machine that ended without being stopped.
func (b *Backend) SetNotify(n backends.Notify) {
	b.mu.Lock()
	b.notify = n
	b.mu.Unlock()
}

func (b *Backend) tell(ctx context.Context, e backends.Event) {
	b.mu.Lock()
	n := b.notify
	b.mu.Unlock()
	if n != nil {
		e.Time = time.Now()
		n(ctx, e)
	}
}

// register keeps m as running and watches for its end: a machine that
// ends while still registered ended on its own (powered off inside,
// crashed, killed), and the controller is told.
func (b *Backend) register(m *machine) {
	b.mu.Lock()
	b.machines[m.id] = m
	b.mu.Unlock()
	go func() {
		<-m.h.Exited()
		b.mu.Lock()
		mine := b.machines[m.id] == m
		if mine {
			delete(b.machines, m.id)
		}
		b.mu.Unlock()
		if mine {
			m.close()
			b.tell(context.Background(), backends.Event{ID: m.id, Exited: true,
				Message: "the VM ended on its own; its console is in " + filepath.Join(m.dir, ConsoleLog)})
		}
	}()
}

// machine is one running sandbox.
type machine struct {
	id       string
	dir      string
	h        Handle
	record   record
	restored bool // from a checkpoint

	mu     sync.Mutex
	client *channel.Client
}

// record is what a sandbox's folder says about the machine in it.
type record struct {
	ID        string `json:"id"`
	Image     string `json:"image"`
	Digest    string `json:"digest"`
	MemoryMiB int64  `json:"memoryMiB"`
	CPUs      int    `json:"cpus"`
	Driver    string `json:"driver"`
	Accel     string `json:"accel"`
}

// New returns the backend.
func New(cfg Config) (*Backend, error) {
	if cfg.Driver == nil {
		return nil, errors.New("vm backend: no hypervisor driver")
	}
	if cfg.Arch == "" {
		cfg.Arch = runtime.GOARCH
	}
	if cfg.BootTimeout == 0 {
		cfg.BootTimeout = 5 * time.Minute
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("vm backend: %w", err)
	}
	return &Backend{cfg: cfg, machines: map[string]*machine{}}, nil
}

// Capabilities: a VM holds the memory it was built with.
func (b *Backend) Capabilities() backends.Capabilities {
	return backends.Capabilities{Kind: backends.KindVM, Checkpoints: b.cfg.Driver.CanCheckpoint(), DefaultImage: "tiny"}
}

// Images lists the guest images built for this machine.
func (b *Backend) Images(ctx context.Context) ([]backends.Image, error) {
	imgs, err := LoadArch(b.cfg.Images, b.cfg.Arch)
	if err != nil {
		return nil, err
	}
	out := make([]backends.Image, len(imgs))
	for i, img := range imgs {
		out[i] = img.public()
	}
	return out, nil
}

// image finds the image a sandbox asks for, by name and, when given, by
// digest.
func (b *Backend) image(want backends.Image) (Image, error) {
	imgs, err := LoadArch(b.cfg.Images, b.cfg.Arch)
	if err != nil {
		return Image{}, err
	}
	for _, img := range imgs {
		if img.Manifest.Name == want.Name && (want.Digest == "" || want.Digest == img.Digest) {
			return img, nil
		}
	}
	return Image{}, fmt.Errorf("%w: no guest image %q (build it with `make guest-image`)", backends.ErrUnknownImage, want.Name)
}

func (b *Backend) dir(id string) (string, error) {
	if id == "" || filepath.Base(id) != id || id[0] == '.' {
		return "", fmt.Errorf("vm backend: bad sandbox id %q", id)
	}
	return filepath.Join(b.cfg.Dir, id), nil
}

// Start boots the sandbox with the memory the controller decided and
// returns once the agent answers. A sandbox with a checkpoint is restored
// instead, with the memory it was built with.
func (b *Backend) Start(ctx context.Context, spec backends.Spec) (backends.Started, error) {
	if m := b.get(spec.ID); m != nil {
		return m.started(), nil
	}
	img, err := b.image(spec.Image)
	if err != nil {
		return backends.Started{}, err
	}
	if err := img.Verify(); err != nil {
		return backends.Started{}, err
	}
	dir, err := b.dir(spec.ID)
	if err != nil {
		return backends.Started{}, err
	}
	mach := Machine{Dir: dir, Image: img, MemoryMiB: spec.MemoryMiB, CPUs: max(spec.CPUs, 1),
		Hostname: "sandbox", Workspace: spec.Workspace, Network: spec.Network}
	if mach.MemoryMiB <= 0 {
		return backends.Started{}, fmt.Errorf("vm %s: no memory was decided for it", spec.Name)
	}
	if f, ok := b.cfg.Driver.(Fitter); ok {
		mach = f.Fit(mach)
	}
	if guest.ValidHostname(spec.Name) {
		mach.Hostname = spec.Name
	}
	var m *machine
	if saved, ok := restorable(dir, img); ok {
		if m, err = b.restore(ctx, spec, mach, saved); err != nil {
			// the workspace was never in the checkpoint: boot cold
			b.tell(ctx, backends.Event{ID: spec.ID, Message: "the checkpoint did not restore, so the VM booted cold: " + err.Error()})
		}
	}
	if m == nil {
		rec := record{ID: spec.ID, Image: img.Manifest.Name, Digest: img.Digest, MemoryMiB: mach.MemoryMiB, CPUs: mach.CPUs, Driver: b.cfg.Driver.Name()}
		if m, err = b.cold(ctx, spec, mach, rec); err != nil {
			return backends.Started{}, err
		}
	}
	b.register(m)
	b.tell(ctx, backends.Event{ID: spec.ID, Message: accelNotice(m.record, m.restored)})
	return m.started(), nil
}

// started is what a running machine holds: the memory it was built with
// and how it runs.
func (m *machine) started() backends.Started {
	return backends.Started{ReservedMiB: m.record.MemoryMiB, Accel: m.record.Accel}
}

// cold boots a machine in an emptied folder.
func (b *Backend) cold(ctx context.Context, spec backends.Spec, mach Machine, rec record) (*machine, error) {
	if err := freshDir(mach.Dir); err != nil {
		return nil, err
	}
	rec.Accel = b.cfg.Driver.Accel(ctx, mach.Image)
	if err := writeRecord(mach.Dir, rec); err != nil {
		return nil, err
	}
	return b.boot(ctx, spec, mach, rec)
}

// restore brings back the machine saved in its folder, as it was built.
func (b *Backend) restore(ctx context.Context, spec backends.Spec, mach Machine, saved record) (*machine, error) {
	if err := clearRuntime(mach.Dir); err != nil {
		return nil, err
	}
	mach.MemoryMiB, mach.CPUs, mach.Restore = saved.MemoryMiB, saved.CPUs, CheckpointFile
	saved.Accel = b.cfg.Driver.Accel(ctx, mach.Image)
	if err := writeRecord(mach.Dir, saved); err != nil {
		return nil, err
	}
	return b.boot(ctx, spec, mach, saved)
}

// boot starts the machine and waits for its agent; a restored machine
// gets its workspace back and its checkpoint is spent.
func (b *Backend) boot(ctx context.Context, spec backends.Spec, mach Machine, rec record) (*machine, error) {
	h, err := b.cfg.Driver.Boot(ctx, mach)
	if err != nil {
		return nil, err
	}
	m := &machine{id: spec.ID, dir: mach.Dir, h: h, record: rec}
	bctx, cancel := context.WithTimeout(ctx, b.cfg.BootTimeout)
	defer cancel()
	err = m.waitAgent(bctx)
	if err == nil && mach.Restore != "" {
		err = b.remount(bctx, m)
	}
	if err != nil {
		h.Kill(context.WithoutCancel(ctx))
		m.close()
		return nil, fmt.Errorf("vm %s: the guest did not answer (see %s): %w", spec.Name, filepath.Join(mach.Dir, ConsoleLog), err)
	}
	if mach.Restore != "" {
		m.restored = true
		os.Remove(filepath.Join(mach.Dir, mach.Restore))
	}
	return m, nil
}

// accelNotice says how the machine runs, for inspect.
func accelNotice(rec record, restored bool) string {
	how := "booted"
	if restored {
		how = "restored from its checkpoint"
	}
	if rec.Accel == "tcg" {
		return fmt.Sprintf("%s by %s with %d MiB under software emulation (TCG): KVM does not work on this host, so the VM is slow", how, rec.Driver, rec.MemoryMiB)
	}
	return fmt.Sprintf("%s by %s with %d MiB under %s", how, rec.Driver, rec.MemoryMiB, strings.ToUpper(rec.Accel))
}

// ConsoleLog is the guest's console, in its sandbox's folder.
const ConsoleLog = "console.log"

func (b *Backend) get(id string) *machine {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.machines[id]
	if m == nil {
		return nil
	}
	select {
	case <-m.h.Exited():
		return nil // its watcher forgets it
	default:
		return m
	}
}

// take removes a machine from the running ones, so its end is the
// caller's doing and not news.
func (b *Backend) take(id string) *machine {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.machines[id]
	delete(b.machines, id)
	return m
}

// Close lets go of every machine without stopping it, as a controller
// that ends leaves them for the next one to adopt.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, m := range b.machines {
		delete(b.machines, id)
		m.close()
	}
	return nil
}

// Exec runs a command in the guest as its user.
func (b *Backend) Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error) {
	m := b.get(id)
	if m == nil {
		return -1, backends.ErrNotRunning
	}
	code, err := agent.Exec(ctx, m.dial, agent.Request{Args: req.Args, Env: req.Env, Dir: req.Dir, TTY: req.TTY},
		stream.IO{Stdin: req.Stdin, Stdout: req.Stdout, Stderr: req.Stderr, Signals: req.Signals, Resizes: req.Resizes})
	var se *agent.StartError
	if errors.As(err, &se) {
		// as a shell reports a command it cannot run
		if req.Stderr != nil {
			fmt.Fprintf(req.Stderr, "sandboxdesk: %s\n", se.Message)
		}
		code, err = 127, nil
	}
	return code, err
}
