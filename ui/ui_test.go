package ui

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/controller"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
	"sandboxdesk/units"
	"sandboxdesk/wire"
)

// rig is the app over a real controller with the VM-like test backend on
// a 16 GiB, 4-CPU host, talking over the in-process transport as the
// desktop does.
type rig struct {
	t      *testing.T
	c      *controller.Controller
	client ipc.Client
	u      *App
	events <-chan ipc.Event
	mu     sync.Mutex
	shells []string
	// ui holds the app's changes to widgets from other goroutines, run
	// by eventually in the test's goroutine
	ui chan func()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	root := t.TempDir()
	vm, err := testvm.New(filepath.Join(root, "testvm"), testvm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return newRigOf(t, root, map[string]controller.Backend{testvm.Name: vm}, testvm.Name)
}

// newRigOf is the rig over a controller with the backends given.
func newRigOf(t *testing.T, root string, bs map[string]controller.Backend, def string) *rig {
	t.Helper()
	a := test.NewTempApp(t)
	c, err := controller.Open(t.Context(), controller.Options{
		Root: root, Backends: bs, DefaultBackend: def,
		Measure: func(context.Context) (host.Info, error) {
			return host.Info{CPUCount: 4, EffectiveCPUCores: 4, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 200 << 30}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Close() })
	r := &rig{t: t, c: c, client: wire.NewLocal(ctx, &controller.Service{C: c})}
	r.u = New(a, r.client, root, false)
	r.ui = make(chan func(), 1000)
	r.u.do = func(f func()) { r.ui <- f }
	r.u.OpenShell = func(name string) error {
		r.mu.Lock()
		r.shells = append(r.shells, name)
		r.mu.Unlock()
		return nil
	}
	// the app's event loop, run step by step in the test's goroutine:
	// Fyne's test driver has no UI goroutine to serialize updates on
	r.events, err = r.client.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(ctx)
	return r
}

// eventually handles the controller's events, as the app's loop does,
// until cond holds; bounded.
func (r *rig) eventually(what string, cond func() bool) {
	r.t.Helper()
	timeout := time.After(20 * time.Second)
	for !cond() {
		select {
		case e := <-r.events:
			r.u.handle(context.Background(), e)
		case f := <-r.ui:
			f()
		case <-time.After(20 * time.Millisecond):
		case <-timeout:
			r.t.Fatalf("never: %s", what)
		}
	}
}

func (r *rig) defaults() ipc.Defaults {
	d, err := r.c.Defaults(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

func (r *rig) addDialog() *addDialog {
	var rg ipc.Ranges
	if err := r.client.Call(r.t.Context(), ipc.RangesRequest{}, &rg); err != nil {
		r.t.Fatal(err)
	}
	a := newAddDialog(r.u, rg)
	a.dlg.Show()
	r.t.Cleanup(a.close)
	a.refetch()
	return a
}

func TestAddDialogQuotesLiveDefaults(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	d := r.defaults()
	if a.memory.PlaceHolder != units.FormatMiB(d.MemoryMiB) || a.cpus.PlaceHolder != strconv.Itoa(d.CPUs) || a.disk.PlaceHolder != units.FormatMiB(d.DiskMiB) {
		t.Fatalf("placeholders %q %q %q, defaults %+v", a.memory.PlaceHolder, a.cpus.PlaceHolder, a.disk.PlaceHolder, d)
	}
	if a.memory.PlaceHolder != "8 GiB" {
		t.Errorf("alone on 16 GiB the dialog quotes %q", a.memory.PlaceHolder)
	}
	// a sandbox reaches running: the dialog, still open, quotes the new share
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "first", MemoryMiB: ptr(int64(2048))}); err != nil {
		t.Fatal(err)
	}
	want := units.FormatMiB(r.defaults().MemoryMiB)
	r.eventually("the memory placeholder follows the running sandbox", func() bool { return a.memory.PlaceHolder == want })
	if want != "4 GiB" {
		t.Errorf("beside one holding 2 GiB the share is %s, want 4 GiB", want)
	}
}

func TestProgressTicksCauseNoRefetch(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	before := r.u.defaultsFetches.Load()
	for i := range 100 {
		r.c.Progress("w", float64(i)/100, "downloading image "+strconv.Itoa(i))
	}
	r.eventually("the last tick reaches the progress bar", func() bool { return r.u.main.barText.Text == "w: downloading image 99" })
	if got := r.u.defaultsFetches.Load() - before; got != 0 {
		t.Errorf("100 progress ticks caused %d refetches of the defaults", got)
	}
	_ = a
}

func TestInvalidMemoryDisablesCreate(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	a.name.SetText("w")
	test.Type(a.memory, "100") // 100 MiB, under a VM's 1 GiB floor
	err := a.memory.Validate()
	if err == nil || err.Error() != "1 GiB to 64 GiB for a VM" {
		t.Errorf("message under the field: %v", err)
	}
	r.eventually("Create is disabled", func() bool { return a.create.Disabled() })
	a.memory.SetText("")
	test.Type(a.memory, "2GiB")
	r.eventually("Create is enabled again", func() bool { return !a.create.Disabled() })
	req, err := a.request()
	if err != nil || req.MemoryMiB == nil || *req.MemoryMiB != 2048 || req.CPUs != nil {
		t.Errorf("request %+v, %v: want 2048 MiB and the rest left to the defaults", req, err)
	}
}

func TestSettingsRecommendedAndCustom(t *testing.T) {
	r := newRig(t)
	lim, _ := r.c.Limits(t.Context())
	d := r.defaults()
	capa, _ := r.c.Capacity(t.Context())
	rg, _ := r.c.RangesOf(t.Context(), "")
	s := newSettingsDialog(r.u, lim, d, capa, rg)
	req, err := s.limitsRequest()
	if err != nil || req.AtOnce != nil || req.Retained != nil {
		t.Errorf("Recommended sends %+v, %v; want no limits", req, err)
	}
	if s.recommendation.Text != "Recommended: 3 at once, 3 retained." {
		t.Errorf("recommendation line %q", s.recommendation.Text)
	}
	s.atOnceMode.SetSelected(custom)
	s.retMode.SetSelected(custom)
	s.atOnce.SetText("5")
	s.retained.SetText("3")
	req, _ = s.limitsRequest()
	if req.AtOnce == nil || *req.AtOnce != 5 {
		t.Errorf("Custom 5 sends %+v", req)
	}
	mreq, send, _ := s.memoryRequest()
	if err := s.store(t.Context(), req, mreq, send); err != nil {
		t.Fatal(err)
	}
	if l, _ := r.c.Limits(t.Context()); l.CustomAtOnce == nil || *l.CustomAtOnce != 5 || l.CustomRetained == nil || *l.CustomRetained != 3 {
		t.Errorf("stored limits %+v, want custom 5 at once and 3 retained", l)
	}
}

func TestTrayQuickStart(t *testing.T) {
	r := newRig(t)
	menu := r.u.trayMenu(nil)
	if menu.Items[0].Label != "Quick start (default)" {
		t.Fatalf("first tray item %q", menu.Items[0].Label)
	}
	menu.Items[0].Action()
	r.eventually("quick start made and opened default", func() bool {
		sb, err := r.c.Inspect(context.Background(), ipc.Ref{Name: QuickStartName})
		r.mu.Lock()
		defer r.mu.Unlock()
		return err == nil && sb.State == ipc.StateRunning && len(r.shells) == 1 && r.shells[0] == QuickStartName
	})
	list, _ := r.c.List(t.Context(), "")
	menu = r.u.trayMenu(list)
	labels := []string{}
	for _, it := range menu.Items {
		labels = append(labels, it.Label)
	}
	if labels[2] != "default   ● running" || labels[len(labels)-2] != "Open sandboxdesk" || labels[len(labels)-1] != "Quit" {
		t.Errorf("tray menu %q", labels)
	}
	if sub := menu.Items[2].ChildMenu.Items; len(sub) != 2 || sub[1].Label != "Stop" {
		t.Errorf("a running sandbox's tray actions: %v", sub)
	}
}

// The window opens before the desktop app's controller has started: it
// does not say there are no sandboxes before the controller has said so.
func TestNoEmptyStateBeforeTheFirstList(t *testing.T) {
	u := New(test.NewTempApp(t), nil, t.TempDir(), false)
	if u.main.empty.Visible() {
		t.Error("a window that has had no list yet says there are no sandboxes")
	}
}

func TestMainWindowListsAndHeader(t *testing.T) {
	r := newRig(t)
	r.eventually("the empty state shows", func() bool { return r.u.main.empty.Visible() })
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-42", MemoryMiB: ptr(int64(4096))}); err != nil {
		t.Fatal(err)
	}
	r.eventually("the sandbox is listed", func() bool { return len(r.u.main.sandboxes) == 1 && !r.u.main.empty.Visible() })
	want := "Memory 4 GiB of 8 GiB reserved  ·  Running 1 of 3 at once  ·  testvm"
	r.eventually("the header shows the budget", func() bool { return r.u.main.header.Text == want })
	cells := rowCells(r.u.main.sandboxes[0], r.u.main.defaults, time.Now())
	if cells[0] != "agent-42" || cells[1] != "● running" || cells[2] != "testvm" || cells[4] != "4 GiB reserved" {
		t.Errorf("row %q", cells)
	}
	r.u.main.list.Select(0)
	if r.u.main.buttons["Stop"].Disabled() || !r.u.main.buttons["Start"].Disabled() {
		t.Error("a running sandbox's actions are wrong")
	}
}

func ptr[T any](v T) *T { return &v }

func TestKeyboard(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	a.name.SetText("")
	test.Type(a.name, "kb")
	a.name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter creates
	r.eventually("Enter created the sandbox", func() bool {
		_, err := r.c.Inspect(context.Background(), ipc.Ref{Name: "kb"})
		return err == nil && a.closed
	})
	b := r.addDialog()
	if r.u.win.Canvas().Overlays().Top() == nil {
		t.Fatal("the Add dialog is not showing")
	}
	b.memory.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if r.u.win.Canvas().Overlays().Top() != nil {
		t.Error("Escape did not close the Add dialog")
	}
}

func TestErrorDialogLeadsWithOneLine(t *testing.T) {
	r := newRig(t)
	_, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "Bad Name"})
	d := r.u.errorDialog("Create Bad Name", failure("Create Bad Name", err))
	d.Show()
	top := r.u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog")
	}
	found := false
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := o.(*widget.Label); ok && l.Text == sentence(err.Error()) {
			found = true
		}
	}
	if !found {
		t.Errorf("the dialog does not lead with %q", err)
	}
	d.Hide()
}
