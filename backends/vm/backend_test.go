//go:build linux

package vm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
	"sandboxdesk/backends/vm/channel"
	"sandboxdesk/stream"
)

// fakeDriver "boots" a machine whose agent is served in this process, so
// the core's rules run without a hypervisor; the qemu package boots real
// ones.
type fakeDriver struct {
	mu       sync.Mutex
	machines map[string]*fakeHandle // by folder
	booted   []Machine
	// checkpoints makes Stop try a save first (which the fake fails)
	checkpoints bool
	// answer, when set, replaces the agent in every machine booted: the
	// guest's root speaking on the channel itself
	answer func(net.Conn)
}

type fakeHandle struct {
	mem    int64
	answer func(net.Conn)
	exited chan struct{}
	once   sync.Once
}

func (d *fakeDriver) CanCheckpoint() bool                 { return d.checkpoints }
func (d *fakeDriver) Name() string                        { return "fake" }
func (d *fakeDriver) Accel(context.Context, Image) string { return "tcg" }

func (d *fakeDriver) Boot(_ context.Context, m Machine) (Handle, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := &fakeHandle{mem: m.MemoryMiB, exited: make(chan struct{}), answer: d.answer}
	d.machines[m.Dir] = h
	d.booted = append(d.booted, m)
	return h, nil
}

func (d *fakeDriver) Attach(_ context.Context, dir string) (Handle, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.machines[dir]
	if h == nil {
		return nil, ErrGone
	}
	select {
	case <-h.exited:
		return nil, ErrGone
	default:
		return h, nil
	}
}

func (h *fakeHandle) Agent(context.Context) (io.ReadWriteCloser, error) {
	host, guestEnd := net.Pipe()
	l, err := channel.Listen(guestEnd)
	if err != nil {
		return nil, err
	}
	if h.answer != nil {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go h.answer(c)
			}
		}()
		return host, nil
	}
	srv := &agent.Server{Env: os.Environ(), Ops: map[string]func(agent.Request) int{
		"poweroff": func(agent.Request) int { go h.end(); return 0 },
	}}
	go srv.Serve(l)
	return host, nil
}

func (h *fakeHandle) end()                                     { h.once.Do(func() { close(h.exited) }) }
func (h *fakeHandle) MemoryMiB(context.Context) (int64, error) { return h.mem, nil }
func (h *fakeHandle) Kill(context.Context) error               { h.end(); return nil }
func (h *fakeHandle) Exited() <-chan struct{}                  { return h.exited }
func (h *fakeHandle) Save(context.Context, string) error       { return errors.New("no checkpoints here") }
func (h *fakeHandle) Close() error                             { return nil }

// writeImage makes an image folder with a manifest whose sums match.
func writeImage(t *testing.T, dir, name string) {
	t.Helper()
	d := filepath.Join(dir, name)
	os.MkdirAll(d, 0o755)
	sum := func(file, content string) File {
		os.WriteFile(filepath.Join(d, file), []byte(content), 0o644)
		h := sha256.Sum256([]byte(content))
		return File{File: file, SHA256: hex.EncodeToString(h[:])}
	}
	m := Manifest{Name: name, Arch: runtime.GOARCH, Flavor: "tiny", Kernel: sum("vmlinuz", "kernel"), Initrd: sum("initrd.gz", "initrd")}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(d, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

type events struct {
	mu  sync.Mutex
	got []backends.Event
}

func (e *events) notify(_ context.Context, ev backends.Event) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
}
func (e *events) exits() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.got {
		if ev.Exited {
			n++
		}
	}
	return n
}

func newFake(t *testing.T) (*Backend, *fakeDriver, *events, string) {
	t.Helper()
	images := t.TempDir()
	writeImage(t, images, "tiny")
	d := &fakeDriver{machines: map[string]*fakeHandle{}}
	dir := t.TempDir()
	b, err := New(Config{Dir: dir, Images: images, Driver: d})
	if err != nil {
		t.Fatal(err)
	}
	ev := &events{}
	b.SetNotify(ev.notify)
	return b, d, ev, images
}

func TestStartReservesWhatItBootsWith(t *testing.T) {
	for _, mem := range []int64{1024, 2048, 6144} {
		b, d, _, _ := newFake(t)
		st, err := b.Start(t.Context(), backends.Spec{ID: "s1", Name: "web", Image: backends.Image{Name: "tiny"}, MemoryMiB: mem, Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if st.ReservedMiB != mem || d.booted[0].MemoryMiB != mem {
			t.Errorf("decided %d: reserved %d, booted with %d", mem, st.ReservedMiB, d.booted[0].MemoryMiB)
		}
	}
}

func TestStartRefuses(t *testing.T) {
	b, _, _, images := newFake(t)
	ws := t.TempDir()
	tests := []struct {
		name string
		spec backends.Spec
	}{
		{"unknown image", backends.Spec{ID: "s1", Image: backends.Image{Name: "nope"}, Workspace: ws, MemoryMiB: 1024}},
		{"other digest", backends.Spec{ID: "s1", Image: backends.Image{Name: "tiny", Digest: "sha256:00"}, Workspace: ws, MemoryMiB: 1024}},
		{"id with a slash", backends.Spec{ID: "../x", Image: backends.Image{Name: "tiny"}, Workspace: ws, MemoryMiB: 1024}},
		{"no memory decided", backends.Spec{ID: "s1", Image: backends.Image{Name: "tiny"}, Workspace: ws, MemoryMiB: 0}},
	}
	for _, tt := range tests {
		if _, err := b.Start(t.Context(), tt.spec); err == nil {
			t.Errorf("%s: started", tt.name)
		}
	}
	// a kernel changed after the build is never booted
	os.WriteFile(filepath.Join(images, "tiny", "vmlinuz"), []byte("another kernel"), 0o644)
	_, err := b.Start(t.Context(), backends.Spec{ID: "s2", Image: backends.Image{Name: "tiny"}, Workspace: ws, MemoryMiB: 1024})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("does not match its manifest")) {
		t.Errorf("a changed kernel: %v", err)
	}
}

func TestMachineEndingOnItsOwnIsNews(t *testing.T) {
	b, d, ev, _ := newFake(t)
	ctx := t.Context()
	for _, id := range []string{"a", "b"} {
		if _, err := b.Start(ctx, backends.Spec{ID: id, Image: backends.Image{Name: "tiny"}, Workspace: t.TempDir(), MemoryMiB: 1024}); err != nil {
			t.Fatal(err)
		}
	}
	// a is stopped: that is not news
	if _, err := b.Stop(ctx, "a", time.Second); err != nil {
		t.Fatal(err)
	}
	// b ends by itself
	d.machines[filepath.Join(b.cfg.Dir, "b")].end()
	for i := 0; i < 500 && ev.exits() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := ev.exits(); n != 1 {
		t.Errorf("%d exit events, want 1 (for b only): %+v", n, ev.got)
	}
	if _, err := b.Exec(ctx, "b", backends.ExecRequest{Args: []string{"true"}}); !errors.Is(err, backends.ErrNotRunning) {
		t.Errorf("exec in an ended machine: %v", err)
	}
}

func TestAdoptAndRemove(t *testing.T) {
	b, d, _, images := newFake(t)
	ctx := t.Context()
	ws := t.TempDir()
	if _, err := b.Start(ctx, backends.Spec{ID: "s1", Image: backends.Image{Name: "tiny"}, Workspace: ws, MemoryMiB: 1024}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "keep"), []byte("mine"), 0o644)
	b.Close()
	// a second backend over the same folder: the next controller
	b2, err := New(Config{Dir: b.cfg.Dir, Images: images, Driver: d})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := b2.Observe(ctx)
	if err != nil || len(obs) != 1 || !obs[0].Running || obs[0].ReservedMiB != 1024 || obs[0].Accel != "tcg" {
		t.Fatalf("observed %+v, %v; want s1 running under tcg, holding the 1024 MiB it was built with", obs, err)
	}
	if code, err := b2.Exec(ctx, "s1", backends.ExecRequest{Args: []string{"true"}}); err != nil || code != 0 {
		t.Errorf("exec in the adopted machine: %d, %v", code, err)
	}
	if err := b2.Remove(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.cfg.Dir, "s1")); !os.IsNotExist(err) {
		t.Errorf("the machine's folder outlived remove: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "keep")); err != nil {
		t.Errorf("remove touched the workspace: %v", err)
	}
	if obs, _ := b2.Observe(ctx); len(obs) != 0 {
		t.Errorf("after remove: %+v", obs)
	}
}

// TestHostileAgentWords: guest root replaces our agent and answers the
// controller's requests with a megabyte of escape sequences. What it says
// reaches a notice (inspect, the window, the person's terminal) as one
// line of text, never as something a terminal obeys.
func TestHostileAgentWords(t *testing.T) {
	b, d, ev, _ := newFake(t)
	d.checkpoints = true
	hostile := "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("\x1b[A", 1<<18)
	d.answer = func(c net.Conn) {
		defer c.Close()
		var req agent.Request
		if json.NewDecoder(c).Decode(&req) != nil {
			return
		}
		if req.Op == "ping" {
			stream.Write(c, stream.Exit, stream.ExitPayload(0))
			return
		}
		stream.Write(c, stream.Error, []byte(hostile))
	}
	ctx := t.Context()
	if _, err := b.Start(ctx, backends.Spec{ID: "s1", Image: backends.Image{Name: "tiny"}, Workspace: t.TempDir(), MemoryMiB: 1024}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stop(ctx, "s1", time.Second); err != nil {
		t.Fatal(err)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	said := false
	for _, e := range ev.got {
		if strings.Contains(e.Message, "pwned") {
			said = true
		}
		if strings.ContainsAny(e.Message, "\x1b\x07") || len(e.Message) > 1000 {
			t.Errorf("a notice holds the guest's escapes raw (%d bytes): %.80q", len(e.Message), e.Message)
		}
	}
	if !said {
		t.Errorf("no notice says what the guest answered: %+v", ev.got)
	}
}

// TestHostileImageManifest: a manifest (an image downloaded from a
// catalogue is no more trusted than its server) whose names hold an
// escape sequence would have it printed raw by images, inspect and
// errors. Such an image is refused in one printable line.
func TestHostileImageManifest(t *testing.T) {
	good := Manifest{Name: "tiny", Arch: runtime.GOARCH, Flavor: "tiny", Kernel: File{File: "vmlinuz"}, Initrd: File{File: "initrd.gz"}}
	tests := []struct {
		name   string
		change func(*Manifest)
	}{
		{"name", func(m *Manifest) { m.Name = "tiny\x1b]0;pwned\x07" }},
		{"flavor", func(m *Manifest) { m.Flavor = "\x1b[2Jtiny" }},
		{"kernel file", func(m *Manifest) { m.Kernel.File = "vmlinuz\u009b2J" }},
		{"root disk file", func(m *Manifest) { m.RootDisk = &File{File: "disk\u202e.raw"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := good
			tt.change(&m)
			data, _ := json.Marshal(m)
			os.MkdirAll(filepath.Join(dir, "img"), 0o755)
			if err := os.WriteFile(filepath.Join(dir, "img", "manifest.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			imgs, err := LoadImages(dir)
			if err == nil {
				t.Fatalf("loaded %+v", imgs)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07\u202e\u009b") {
				t.Errorf("the refusal holds the escape raw: %q", err)
			}
		})
	}
}

// fittingDriver builds machines of at most 3072 MiB and 2 CPUs, as vz
// clamps to what this Mac allows.
type fittingDriver struct{ *fakeDriver }

func (d fittingDriver) Fit(m Machine) Machine {
	m.MemoryMiB, m.CPUs = min(m.MemoryMiB, 3072), min(m.CPUs, 2)
	return m
}

func TestStartReservesWhatTheDriverFits(t *testing.T) {
	tests := []struct {
		name         string
		mem          int64
		cpus         int
		wantReserved int64
		wantCPUs     int
	}{
		{"within the bounds: as decided", 2048, 2, 2048, 2},
		{"above them: clamped, and the clamped value counted", 6144, 4, 3072, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			images := t.TempDir()
			writeImage(t, images, "tiny")
			d := fittingDriver{&fakeDriver{machines: map[string]*fakeHandle{}}}
			b, err := New(Config{Dir: t.TempDir(), Images: images, Driver: d})
			if err != nil {
				t.Fatal(err)
			}
			st, err := b.Start(t.Context(), backends.Spec{ID: "s1", Name: "web", Image: backends.Image{Name: "tiny"}, MemoryMiB: tt.mem, CPUs: tt.cpus, Workspace: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			booted := d.booted[0]
			if st.ReservedMiB != tt.wantReserved || booted.MemoryMiB != tt.wantReserved || booted.CPUs != tt.wantCPUs {
				t.Errorf("reserved %d, booted with %d MiB and %d CPUs; want %d MiB, %d CPUs", st.ReservedMiB, booted.MemoryMiB, booted.CPUs, tt.wantReserved, tt.wantCPUs)
			}
		})
	}
}

// TestColdBootKeepsTheIdentity: a cold boot empties the sandbox's folder
// but for the machine's identity.
func TestColdBootKeepsTheIdentity(t *testing.T) {
	b, _, _, _ := newFake(t)
	ctx := t.Context()
	spec := backends.Spec{ID: "s1", Image: backends.Image{Name: "tiny"}, Workspace: t.TempDir(), MemoryMiB: 1024}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(b.cfg.Dir, "s1")
	os.WriteFile(filepath.Join(dir, IdentityFile), []byte("id"), 0o600)
	os.WriteFile(filepath.Join(dir, "stale.sock"), nil, 0o600)
	if _, err := b.Stop(ctx, "s1", time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, IdentityFile)); err != nil || string(got) != "id" {
		t.Errorf("identity after a cold boot: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale.sock")); !os.IsNotExist(err) {
		t.Errorf("what the last machine left is still there: %v", err)
	}
}
