package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// fakeClock is moved by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// env is a controller over a fresh root with the VM-like test backend, on
// a host of a given size.
type env struct {
	t     *testing.T
	root  string
	c     *Controller
	vm    *testvm.Backend
	clock *fakeClock
	host  host.Info
	// measures counts the host measurements the controller took
	measures atomic.Int64
}

type envOption func(*env)

func withHost(totalGiB uint64, cpus int) envOption {
	return func(e *env) {
		e.host = host.Info{CPUCount: cpus, EffectiveCPUCores: float64(cpus), TotalMemoryBytes: totalGiB << 30, AvailableDiskBytes: 200 << 30}
	}
}

func withRoot(root string) envOption { return func(e *env) { e.root = root } }

func newEnv(t *testing.T, opts ...envOption) *env {
	return openEnv(t, testvm.Config{}, opts...)
}

func openEnv(t *testing.T, cfg testvm.Config, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, root: t.TempDir(), clock: &fakeClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}
	withHost(16, 8)(e)
	for _, o := range opts {
		o(e)
	}
	vm, err := testvm.New(filepath.Join(e.root, "testvm"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.vm = vm
	e.c, err = Open(t.Context(), Options{
		Root:           e.root,
		Backends:       map[string]Backend{testvm.Name: vm},
		DefaultBackend: testvm.Name,
		Measure:        func(context.Context) (host.Info, error) { e.measures.Add(1); return e.host, nil },
		Clock:          e.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.c.Close() })
	return e
}

func mib(v int64) *int64 { return &v }
func msOf(d time.Duration) *int64 {
	v := d.Milliseconds()
	return &v
}
func intp(v int) *int { return &v }

func (e *env) create(req ipc.CreateRequest) ipc.Sandbox {
	e.t.Helper()
	sb, err := e.c.Create(e.t.Context(), req)
	if err != nil {
		e.t.Fatalf("create %+v: %v", req, err)
	}
	return sb
}

func (e *env) writeWorkspace(name, file, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.c.workspace(name), file), []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) readWorkspace(name, file string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(e.c.workspace(name), file))
	return string(b), err == nil
}

func (e *env) rows() int {
	e.t.Helper()
	var n int
	if err := e.c.store.db.QueryRow("SELECT count(*) FROM sandboxes").Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func imageOf(name, digest string) backends.Image { return backends.Image{Name: name, Digest: digest} }

var errBoom = errors.New("boom: the hypervisor said no")

type backendsSpec = backends.Spec

func (e *env) workspaceExists(name string) bool {
	_, err := os.Stat(e.c.workspace(name))
	return err == nil
}

// withMemory gives a spec the memory the controller would have decided.
func withMemory(s backendsSpec, mib int64) backendsSpec { s.MemoryMiB = mib; return s }

// reopen closes the controller and opens another over the same root and
// test backend folder, as a restart does.
func (e *env) reopen(cfg testvm.Config) {
	e.t.Helper()
	e.c.Close()
	vm, err := testvm.New(filepath.Join(e.root, "testvm"), cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.vm = vm
	e.c, err = Open(e.t.Context(), Options{
		Root: e.root, Backends: map[string]Backend{testvm.Name: vm}, DefaultBackend: testvm.Name,
		Measure: func(context.Context) (host.Info, error) { e.measures.Add(1); return e.host, nil }, Clock: e.clock,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { e.c.Close() })
}

// states lists every sandbox's state by name.
func (e *env) states() map[string]ipc.State {
	e.t.Helper()
	list, err := e.c.List(e.t.Context(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]ipc.State{}
	for _, sb := range list {
		out[sb.Name] = sb.State
	}
	return out
}

// sql runs a statement on the controller's database, for tests that make
// a write fail the way a full disk would.
func (e *env) sql(stmt string) {
	e.t.Helper()
	if _, err := e.c.store.db.Exec(stmt); err != nil {
		e.t.Fatal(err)
	}
}
