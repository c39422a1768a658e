//go:build linux

// Package qemu is the VM backend's driver for QEMU on Linux: KVM when it
// really works, software emulation (TCG) otherwise; the workspace over 9p
// with ownership mapped into extended attributes, so every file the guest
// makes is the controller's user's on the host and no link it makes is a
// host link; the agent over a virtio-serial port; QMP for memory
// read-back and forcing off; user-mode networking or none.
//
// QEMU runs in a session of its own so a controller that dies leaves its
// machines running; the next one finds them through the sockets in their
// folders.
package qemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends/vm"
)

// Files in a machine's folder.
const (
	qmpSocket     = "qmp.sock"
	agentSocket   = "agent.sock"
	consoleSocket = "console.sock"
	pidFile       = "qemu.pid"
	qemuLog       = "qemu.log"
)

// Driver runs machines with QEMU.
type Driver struct {
	// Binary is the QEMU of this machine's architecture (or the path of
	// one); an image of another architecture runs under that one's
	// (qemu-system-aarch64 for arm64), emulated.
	Binary string
	// ForceAccel, when set, skips the KVM probe ("tcg" on a host known to have
	// no working KVM).
	ForceAccel string

	mu    sync.Mutex
	accel map[string]string // probed, by kernel
}

// Find returns a driver for the qemu binary of this machine's
// architecture, or an error naming the package to install.
func Find() (*Driver, error) {
	bin, err := findSystem(runtime.GOARCH)
	if err != nil {
		return nil, err
	}
	return &Driver{Binary: bin}, nil
}

// systems are QEMU's emulators by Go architecture, and their Debian
// packages.
var systems = map[string]struct{ binary, pkg string }{
	"amd64": {"qemu-system-x86_64", "qemu-system-x86"},
	"arm64": {"qemu-system-aarch64", "qemu-system-arm"},
}

// findSystem finds the QEMU that runs machines of arch.
func findSystem(arch string) (string, error) {
	s, ok := systems[arch]
	if !ok {
		return "", fmt.Errorf("qemu: no emulator for %s machines", arch)
	}
	bin, err := exec.LookPath(s.binary)
	if err != nil {
		return "", fmt.Errorf("%s not found: install the %s package", s.binary, s.pkg)
	}
	return bin, nil
}

// binary is the QEMU for an image: the driver's own for this machine's
// architecture.
func (d *Driver) binary(img vm.Image) (string, error) {
	if img.Manifest.Arch == "" || img.Manifest.Arch == runtime.GOARCH {
		return d.Binary, nil
	}
	return findSystem(img.Manifest.Arch)
}

// Name is "qemu".
func (d *Driver) Name() string { return "qemu" }

// Accel is "kvm" when the image's kernel really boots under KVM here,
// else "tcg". The probe runs once per kernel.
func (d *Driver) Accel(ctx context.Context, img vm.Image) string {
	if d.ForceAccel != "" {
		return d.ForceAccel
	}
	kernel := img.Path(img.Manifest.Kernel)
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.accel[kernel]; ok {
		return a
	}
	a := "tcg"
	// another architecture's machine is only ever emulated
	if native := img.Manifest.Arch == "" || img.Manifest.Arch == runtime.GOARCH; native && kvmWorks(ctx, d.Binary, kernel, 10*time.Second) {
		a = "kvm"
	}
	if d.accel == nil {
		d.accel = map[string]string{}
	}
	d.accel[kernel] = a
	return a
}

// Boot starts QEMU for m in m.Dir and connects to its QMP socket.
func (d *Driver) Boot(ctx context.Context, m vm.Machine) (vm.Handle, error) {
	if err := d.prepareDisk(ctx, m); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(m.Dir, qemuLog), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	defer log.Close()
	bin, err := d.binary(m.Image)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, Args(m, d.Accel(ctx, m.Image))...)
	// relative socket and log names: a folder's path may be longer than a
	// unix socket's
	cmd.Dir = m.Dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	// a session of its own: the machine outlives a controller that dies
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	q, err := connectQMP(ctx, m.Dir, exited)
	if err != nil {
		cmd.Process.Kill()
		<-exited
		return nil, fmt.Errorf("qemu did not start: %w: %s", err, tail(filepath.Join(m.Dir, qemuLog)))
	}
	h := newHandle(m.Dir, q, cmd.Process.Pid, exited)
	h.keepConsole(ctx)
	if m.Restore != "" {
		if err := h.waitRunning(ctx); err != nil {
			h.Kill(context.WithoutCancel(ctx))
			h.Close()
			return nil, fmt.Errorf("restore %s: %w: %s", m.Restore, err, tail(filepath.Join(m.Dir, qemuLog)))
		}
	}
	return h, nil
}

// CanCheckpoint: QEMU saves a machine by migrating it to a file.
func (d *Driver) CanCheckpoint() bool { return true }

// Attach connects to the machine an earlier controller booted in dir.
func (d *Driver) Attach(ctx context.Context, dir string) (vm.Handle, error) {
	conn, err := dialIn(ctx, dir, qmpSocket)
	if err != nil {
		return nil, vm.ErrGone
	}
	q, err := dialQMP(ctx, conn)
	if err != nil {
		return nil, vm.ErrGone
	}
	pid, _ := readPid(dir)
	h := newHandle(dir, q, pid, nil)
	h.keepConsole(ctx)
	return h, nil
}

// connectQMP waits for QEMU's QMP socket and connects.
func connectQMP(ctx context.Context, dir string, exited <-chan struct{}) (*qmp, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if conn, err := dialIn(ctx, dir, qmpSocket); err == nil {
			return dialQMP(ctx, conn)
		}
		select {
		case <-exited:
			return nil, errors.New("qemu ended")
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dialIn connects to a socket in dir through the folder's descriptor, so
// the path's length does not matter and no link on the way is followed.
func dialIn(ctx context.Context, dir, name string) (net.Conn, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var d net.Dialer
	return d.DialContext(ctx, "unix", "/proc/self/fd/"+strconv.Itoa(fd)+"/"+name)
}

func readPid(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// tail is the end of a log, for an error message.
func tail(path string) string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(data))
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return s
}

// handle is one running QEMU.
type handle struct {
	dir     string
	q       *qmp
	pid     int
	exited  chan struct{}
	once    sync.Once
	console net.Conn // nil when it could not be reached
}

// newHandle watches for the machine's end: its own process when this
// controller started it, else the QMP socket closing.
func newHandle(dir string, q *qmp, pid int, child <-chan struct{}) *handle {
	h := &handle{dir: dir, q: q, pid: pid, exited: make(chan struct{})}
	end := func() { h.once.Do(func() { close(h.exited) }) }
	go func() { <-q.gone; end() }()
	if child != nil {
		go func() { <-child; end() }()
	}
	return h
}

func (h *handle) Exited() <-chan struct{} { return h.exited }

func (h *handle) Agent(ctx context.Context) (io.ReadWriteCloser, error) {
	return dialIn(ctx, h.dir, agentSocket)
}

func (h *handle) MemoryMiB(ctx context.Context) (int64, error) {
	ret, err := h.q.execute(ctx, "query-memory-size-summary", nil)
	if err != nil {
		return 0, err
	}
	var s struct {
		Base int64 `json:"base-memory"`
	}
	if err := json.Unmarshal(ret, &s); err != nil {
		return 0, fmt.Errorf("qmp query-memory-size-summary: %w", err)
	}
	return s.Base >> 20, nil
}

// Kill asks QEMU to quit at once and kills it when it does not.
func (h *handle) Kill(ctx context.Context) error {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	h.q.execute(qctx, "quit", nil)
	cancel()
	select {
	case <-h.exited:
		return nil
	case <-time.After(5 * time.Second):
	}
	if h.pid > 0 && isQEMUIn(h.pid, h.dir) {
		syscall.Kill(h.pid, syscall.SIGKILL)
	}
	select {
	case <-h.exited:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("qemu did not end")
	}
}

// isQEMUIn says whether pid is still the QEMU that runs in dir, not a
// process that took its number since.
func isQEMUIn(pid int, dir string) bool {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return err == nil && cwd == dir
}

func (h *handle) Close() error {
	if h.console != nil {
		h.console.Close()
	}
	return h.q.close()
}

// consoleCap bounds a machine's console log.
const consoleCap = 1 << 20

// keepConsole copies the guest's console into the console log, up to
// consoleCap bytes. The guest's root can write to its console without
// end, and QEMU, writing a file itself, filled the host's disk at the
// guest's pace; so QEMU serves the console on a socket (dropping what is
// written while no controller listens) and the controller keeps the
// beginning, which says how the machine booted, and drops the rest.
func (h *handle) keepConsole(ctx context.Context) {
	conn, err := dialIn(ctx, h.dir, consoleSocket)
	if err != nil {
		return // a machine without a console log still runs
	}
	h.console = conn
	go func() {
		defer conn.Close()
		f, err := os.OpenFile(filepath.Join(h.dir, vm.ConsoleLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			io.Copy(io.Discard, conn)
			return
		}
		defer f.Close()
		var kept int64
		if st, err := f.Stat(); err == nil {
			kept = st.Size() // an adopted machine's log goes on
		}
		if kept < consoleCap {
			n, _ := io.CopyN(f, conn, consoleCap-kept)
			if kept+n < consoleCap {
				return // the machine ended, or this controller let go
			}
			fmt.Fprintf(f, "\n[sandboxdesk: the console log stops at %d MiB; the rest is dropped]\n", consoleCap>>20)
		}
		io.Copy(io.Discard, conn)
	}()
}

// waitRunning waits for a restored machine's state to be loaded.
func (h *handle) waitRunning(ctx context.Context) error {
	for {
		ret, err := h.q.execute(ctx, "query-status", nil)
		if err != nil {
			return err
		}
		var st struct {
			Status string `json:"status"`
		}
		json.Unmarshal(ret, &st)
		switch st.Status {
		case "running":
			return nil
		case "paused":
			// saved paused, loaded paused: run it
			if _, err := h.q.execute(ctx, "cont", nil); err != nil {
				return err
			}
		case "inmigrate", "prelaunch", "restore-vm":
		default:
			return fmt.Errorf("the machine is %q after loading its state", st.Status)
		}
		select {
		case <-h.exited:
			return errGone
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Save pauses the machine, migrates its state into file (written beside
// as file.tmp, renamed once complete) and quits QEMU. On failure the
// machine runs on.
func (h *handle) Save(ctx context.Context, file string) error {
	file = filepath.Base(file)
	if _, err := h.q.execute(ctx, "stop", nil); err != nil {
		return err
	}
	err := h.migrate(ctx, file+".tmp")
	if err == nil {
		err = os.Rename(filepath.Join(h.dir, file+".tmp"), filepath.Join(h.dir, file))
	}
	if err != nil {
		os.Remove(filepath.Join(h.dir, file+".tmp"))
		h.q.execute(context.WithoutCancel(ctx), "cont", nil)
		return fmt.Errorf("save the VM: %w", err)
	}
	h.q.execute(ctx, "quit", nil)
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		h.Kill(context.WithoutCancel(ctx))
	}
	return nil
}

func (h *handle) migrate(ctx context.Context, tmp string) error {
	if _, err := h.q.execute(ctx, "migrate", map[string]any{"uri": "exec:cat > " + tmp}); err != nil {
		return err
	}
	for {
		ret, err := h.q.execute(ctx, "query-migrate", nil)
		if err != nil {
			return err
		}
		var st struct {
			Status string `json:"status"`
			Error  string `json:"error-desc"`
		}
		json.Unmarshal(ret, &st)
		switch st.Status {
		case "completed":
			return nil
		case "failed", "cancelled":
			return fmt.Errorf("migration %s: %s", st.Status, st.Error)
		}
		select {
		case <-ctx.Done():
			h.q.execute(context.WithoutCancel(ctx), "migrate_cancel", nil)
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
