package wsl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"sandboxdesk/backends"
)

// Name is the backend's name in requests and records.
const Name = "wsl"

// Config says where wsl.exe and the images are.
type Config struct {
	// Root is the controller's root; it marks every distro the backend
	// makes (see distroName).
	Root string
	// WSL is the path of wsl.exe; tests point it at the fake.
	WSL string
	// Images is the folder of root filesystem tarballs, NAME.tar each.
	Images string
	Logger *slog.Logger
}

// Backend runs each sandbox as a WSL 2 distro.
type Backend struct {
	cfg    Config
	images *imageDir

	mu      sync.Mutex
	holders map[string]*holder // by sandbox id: what keeps its distro up
	notify  backends.Notify
}

// holder is the wsl.exe that keeps a distro running; done closes when
// it ends.
type holder struct {
	cmd      *exec.Cmd
	done     chan struct{}
	stopping bool
}

// New returns the backend. It does not run wsl.exe: a missing WSL shows
// when a sandbox starts, with the fix in the message.
func New(cfg Config) (*Backend, error) {
	if cfg.Root == "" || cfg.WSL == "" || cfg.Images == "" {
		return nil, errors.New("wsl backend: root, wsl.exe and images folder are all needed")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := os.MkdirAll(cfg.Images, 0o700); err != nil {
		return nil, fmt.Errorf("wsl backend: %w", err)
	}
	return &Backend{cfg: cfg, images: &imageDir{dir: cfg.Images}, holders: map[string]*holder{}}, nil
}

// SetNotify receives the backend's own events (a distro that ended).
func (b *Backend) SetNotify(n backends.Notify) { b.mu.Lock(); b.notify = n; b.mu.Unlock() }

// Capabilities: a VM, but the utility VM is Windows', so it reserves
// nothing of the budget.
func (b *Backend) Capabilities() backends.Capabilities {
	return backends.Capabilities{Kind: backends.KindVM, DefaultImage: "base"}
}

// Images lists the tarballs in the images folder.
func (b *Backend) Images(ctx context.Context) ([]backends.Image, error) {
	return b.images.list()
}

// run runs wsl.exe with args and returns what it printed.
func (b *Backend) run(ctx context.Context, what string, args ...string) ([]byte, error) {
	if _, err := os.Stat(b.cfg.WSL); err != nil {
		return nil, classify(what, nil, errNoWSLExe)
	}
	cmd := exec.CommandContext(ctx, b.cfg.WSL, args...)
	cmd.Env = plainEnv(os.Environ())
	hideWindow(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), classify(what, out.Bytes(), err)
}

// plainEnv is wsl.exe's environment: the controller's, less WSLENV, so
// no variable of the user's reaches a sandbox unless an exec names it.
func plainEnv(env []string) []string {
	out, _ := wslEnv(env, nil)
	return out
}

// list is what wsl.exe --list --verbose says; no distro at all is an
// empty list, not an error.
func (b *Backend) list(ctx context.Context) ([]Distro, error) {
	out, err := b.run(ctx, "list WSL distros", listArgs()...)
	if errors.Is(err, errNoDistros) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseList(decode(out)), nil
}

func (b *Backend) find(ctx context.Context, distro string) (*Distro, error) {
	ds, err := b.list(ctx)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		if ds[i].Name == distro {
			return &ds[i], nil
		}
	}
	return nil, nil
}

// Start imports the sandbox's distro the first time, then keeps it
// running and checks that its workspace is there. The memory the
// controller decided is not applied: WSL sizes one utility VM for every
// distro (in the user's .wslconfig), so a sandbox holds and limits
// nothing of its own, and Started says so.
func (b *Backend) Start(ctx context.Context, spec backends.Spec) (backends.Started, error) {
	name, err := distroName(b.cfg.Root, spec.ID)
	if err != nil {
		return backends.Started{}, err
	}
	if spec.Network == backends.NetworkOff {
		return backends.Started{}, fmt.Errorf("start sandbox %s: network off is not possible with WSL, whose distros share one network; use on", spec.Name)
	}
	d, err := b.find(ctx, name)
	if err != nil {
		return backends.Started{}, err
	}
	if d == nil {
		if err := b.importDistro(ctx, name, spec); err != nil {
			return backends.Started{}, err
		}
	} else if d.Version != 2 {
		return backends.Started{}, fmt.Errorf("distro %s is WSL %d: %w", name, d.Version, ErrWSL1Only)
	}
	if err := b.hold(spec.ID, name); err != nil {
		return backends.Started{}, err
	}
	if _, err := b.run(ctx, "start sandbox "+spec.Name, execArgs(name, User, "/workspace", []string{"/bin/true"})...); err != nil {
		b.release(spec.ID)
		return backends.Started{}, err
	}
	return backends.Started{}, nil
}

// importDistro writes the sandbox's root filesystem (the image plus
// what makes it a sandbox) and imports it as a WSL 2 distro.
func (b *Backend) importDistro(ctx context.Context, name string, spec backends.Spec) error {
	src, err := b.images.open(spec.Image)
	if err != nil {
		return err
	}
	defer src.Close()
	dir := filepath.Join(spec.StateDir, "distro")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("import %s: %w", spec.Name, err)
	}
	tarball := filepath.Join(spec.StateDir, "rootfs.tar")
	f, err := os.OpenFile(tarball, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("import %s: %w", spec.Name, err)
	}
	defer os.Remove(tarball)
	err = prepareRootfs(f, src, spec.Name, spec.Workspace)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", spec.Name, err)
	}
	_, err = b.run(ctx, "import "+spec.Name+" into WSL", importArgs(name, dir, tarball)...)
	return err
}

// hold starts the wsl.exe that keeps the distro running.
func (b *Backend) hold(id, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.holders[id]; h != nil {
		select {
		case <-h.done:
		default:
			return nil
		}
	}
	cmd := exec.Command(b.cfg.WSL, holdArgs(name)...)
	cmd.Env = plainEnv(os.Environ())
	hideWindow(cmd)
	if err := cmd.Start(); err != nil {
		return classify("keep distro "+name+" running", nil, err)
	}
	h := &holder{cmd: cmd, done: make(chan struct{})}
	b.holders[id] = h
	go b.watch(id, h)
	return nil
}

// watch waits for a holder and tells the controller when a distro
// ended without being asked to (wsl.exe --shutdown, a crash).
func (b *Backend) watch(id string, h *holder) {
	h.cmd.Wait()
	close(h.done)
	b.mu.Lock()
	gone, notify := !h.stopping && b.holders[id] == h, b.notify
	if gone {
		delete(b.holders, id)
	}
	b.mu.Unlock()
	if gone && notify != nil {
		notify(context.Background(), backends.Event{ID: id, Message: "the WSL distro ended", Exited: true, Time: time.Now()})
	}
}

// release ends the holder of id, if any, and waits for it.
func (b *Backend) release(id string) {
	b.mu.Lock()
	h := b.holders[id]
	delete(b.holders, id)
	if h != nil {
		h.stopping = true
	}
	b.mu.Unlock()
	if h != nil {
		h.cmd.Process.Kill()
		<-h.done
	}
}

func (b *Backend) running(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.holders[id]
	if h == nil {
		return false
	}
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

// Stop asks the distro's processes to end, gives them grace, then
// terminates the distro.
func (b *Backend) Stop(ctx context.Context, id string, grace time.Duration) (backends.Stopped, error) {
	name, err := distroName(b.cfg.Root, id)
	if err != nil {
		return backends.Stopped{}, err
	}
	b.mu.Lock()
	h := b.holders[id]
	if h != nil {
		h.stopping = true
	}
	b.mu.Unlock()
	if h == nil {
		return backends.Stopped{}, nil
	}
	select {
	case <-h.done:
		// it ended on its own; asking would only boot it again
		b.release(id)
		return backends.Stopped{}, nil
	default:
	}
	if _, err := b.run(ctx, "ask sandbox processes to end", askEndArgs(name)...); err != nil {
		b.cfg.Logger.Warn("could not ask the sandbox's processes to end; terminating it", "distro", name, "err", err)
	} else {
		b.settle(ctx, name, h, grace)
	}
	_, err = b.run(ctx, "stop sandbox", terminateArgs(name)...)
	b.release(id)
	if err != nil && !errors.Is(err, ErrNoSuchDistro) {
		return backends.Stopped{}, err
	}
	return backends.Stopped{}, nil
}

// settle waits up to grace for the distro to stop on its own.
func (b *Backend) settle(ctx context.Context, name string, h *holder, grace time.Duration) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-h.done:
			if d, err := b.find(ctx, name); err != nil || d == nil || d.State != StateRunning {
				return
			}
		case <-tick.C:
			if d, err := b.find(ctx, name); err == nil && (d == nil || d.State != StateRunning) {
				return
			}
		}
	}
}

// Remove terminates the distro and unregisters it, which deletes its
// disk. The workspace, a Windows folder, is the controller's.
func (b *Backend) Remove(ctx context.Context, id string) error {
	name, err := distroName(b.cfg.Root, id)
	if err != nil {
		return err
	}
	b.release(id)
	if _, err := b.run(ctx, "remove sandbox", unregisterArgs(name)...); err != nil && !errors.Is(err, ErrNoSuchDistro) {
		return err
	}
	return nil
}

// Observe lists this root's distros. A distro counts as running only
// while this backend holds it: one left by a controller that died stops
// on its own within seconds, and is started again like a stopped one.
func (b *Backend) Observe(ctx context.Context) ([]backends.Observed, error) {
	ds, err := b.list(ctx)
	if err != nil {
		return nil, err
	}
	var out []backends.Observed
	for _, d := range ds {
		if id, ok := idOf(b.cfg.Root, d.Name); ok {
			out = append(out, backends.Observed{ID: id, Running: d.State == StateRunning && b.running(id)})
		}
	}
	return out, nil
}
