package ui

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/controller"
	"sandboxdesk/ipc"
)

// newTwoBackendRig is the app over a controller with two backends, as on
// Linux with qemu: "procs" (host processes under a limit, the default,
// as bubblewrap is) and "vm" (a VM that reserves its memory and says it
// runs under software emulation).
func newTwoBackendRig(t *testing.T) *rig {
	t.Helper()
	root := t.TempDir()
	procs, err := testvm.New(filepath.Join(root, "procs"), testvm.Config{Processes: true})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := testvm.New(filepath.Join(root, "vm"), testvm.Config{Accel: "tcg"})
	if err != nil {
		t.Fatal(err)
	}
	vm.SetImages([]backends.Image{{Name: "debian", Digest: "sha256:" + strings.Repeat("d", 64)}, testvm.DefaultImages[0]})
	return newRigOf(t, root, map[string]controller.Backend{"procs": procs, "vm": vm}, "procs")
}

// formLabels are the labels of the form's items, in order.
func formLabels(f *widget.Form) []string {
	var out []string
	for _, it := range f.Items {
		out = append(out, it.Text)
	}
	return out
}

// shownTexts are the texts drawn under o: labels, and the hint lines a
// form draws under its fields.
func shownTexts(o fyne.CanvasObject) string {
	var out []string
	for _, x := range test.LaidOutObjects(o) {
		if t, ok := x.(*canvas.Text); ok && t.Visible() {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n")
}

// With one backend there is nothing to choose: no Backend field.
func TestAddOffersNoBackendChoiceWithOne(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	if a.backend != nil || slices.Contains(formLabels(a.form), "Backend") {
		t.Errorf("one backend, yet the form has %v", formLabels(a.form))
	}
	req, err := a.request()
	if err != nil || req.Backend != testvm.Name {
		t.Errorf("request %+v, %v: want the only backend", req, err)
	}
}

// With two, the dialog offers the choice; choosing one fits the images
// and the ranges to it, and the create goes to it.
func TestAddChoosesTheBackend(t *testing.T) {
	r := newTwoBackendRig(t)
	a := r.addDialog()
	if got := formLabels(a.form); !reflect.DeepEqual(got[:3], []string{"Name", "Backend", "Image"}) {
		t.Fatalf("form items %v, want Backend between Name and Image", got)
	}
	if a.backend.Selected != "procs" || !reflect.DeepEqual(a.backend.Options, []string{"procs", "vm"}) {
		t.Errorf("backend %q of %v, want the default procs of procs and vm", a.backend.Selected, a.backend.Options)
	}
	if !reflect.DeepEqual(a.image.Options, []string{"base", "python"}) || a.image.Selected != "base" {
		t.Errorf("procs images %v, selected %q", a.image.Options, a.image.Selected)
	}
	dialog := r.u.win.Canvas().Overlays().Top()
	for _, hint := range []string{"host processes in a jail, under a memory limit", "empty: the default at start; a limit on the sandbox's processes"} {
		if !strings.Contains(shownTexts(dialog), hint) {
			t.Errorf("the dialog does not show %q", hint)
		}
	}
	// a small limit is fine for host processes...
	a.memory.SetText("512MiB")
	if err := a.memory.Validate(); err != nil || a.create.Disabled() {
		t.Fatalf("512 MiB for host processes: %v, create disabled %v", err, a.create.Disabled())
	}

	// ...and too little for a VM, which says so as soon as it is chosen
	a.backend.SetSelected("vm")
	r.eventually("the vm backend's ranges", func() bool { return a.ranges.Backend == "vm" })
	if !reflect.DeepEqual(a.image.Options, []string{"base", "debian"}) || a.image.Selected != "base" {
		t.Errorf("vm images %v, selected %q; want its own, its default first and selected", a.image.Options, a.image.Selected)
	}
	if err := a.memory.Validate(); err == nil || !strings.Contains(err.Error(), "1 GiB to 64 GiB for a VM") {
		t.Errorf("512 MiB for a VM: %v", err)
	}
	if !a.create.Disabled() {
		t.Error("Create is enabled with 512 MiB for a VM")
	}
	if shown := shownTexts(dialog); !strings.Contains(shown, "a VM of its own: slower to start, it holds its memory while it runs") ||
		!strings.Contains(shown, "1 GiB to 64 GiB for a VM") {
		t.Errorf("with vm chosen the dialog shows %q", shown)
	}
	a.memory.SetText("2GiB")
	if shown := shownTexts(dialog); !strings.Contains(shown, "empty: the default at start; a VM holds all of it while it runs") {
		t.Errorf("with vm chosen and 2 GiB typed the dialog shows %q", shown)
	}
	a.image.SetSelected("debian")
	if a.create.Disabled() {
		t.Fatal("Create stays disabled with 2 GiB for a VM")
	}
	name := a.name.Text
	test.Tap(a.create)
	// the dialog closes once the list shows the sandbox, starting or not
	r.eventually("the list shows the VM running", func() bool {
		sb, ok := r.u.main.find(name)
		return a.closed && ok && sb.State == ipc.StateRunning
	})
	sb, err := r.c.Inspect(t.Context(), ipc.Ref{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Backend != "vm" || sb.Image != "debian" || sb.ReservedMiB != 2048 {
		t.Errorf("created on %s from %s holding %d MiB; want vm, debian, 2048", sb.Backend, sb.Image, sb.ReservedMiB)
	}
	// the window's list says where it runs and how
	got, _ := r.u.main.find(name)
	cells := rowCells(got, r.u.main.defaults, time.Now())
	if cells[2] != "vm · tcg" || cells[4] != "2 GiB reserved" {
		t.Errorf("the list shows backend %q memory %q; want vm · tcg, 2 GiB reserved", cells[2], cells[4])
	}
}

// A sandbox of that name on the other backend is another shape: the
// dialog says Create rebuilds it there.
func TestAddSaysAnotherBackendRebuilds(t *testing.T) {
	r := newTwoBackendRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-9"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	a := r.addDialog()
	a.name.SetText("agent-9")
	if !strings.Contains(a.about.Text, "reuses it as it is") {
		t.Errorf("same backend: %q", a.about.Text)
	}
	a.backend.SetSelected("vm")
	r.eventually("the vm backend's ranges", func() bool { return a.ranges.Backend == "vm" })
	if want := "agent-9 exists on procs: Create rebuilds it on vm, keeping its workspace."; a.about.Text != want {
		t.Errorf("another backend: %q, want %q", a.about.Text, want)
	}
}

func TestBackendTextSaysHowAVMRuns(t *testing.T) {
	for _, tt := range []struct {
		sb   ipc.Sandbox
		want string
	}{
		{ipc.Sandbox{Backend: "vm", Accel: "kvm"}, "vm · kvm"},
		{ipc.Sandbox{Backend: "vm"}, "vm"},
		{ipc.Sandbox{Backend: "bubblewrap"}, "bubblewrap"},
	} {
		if got := backendText(tt.sb); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.sb, got, tt.want)
		}
	}
}
