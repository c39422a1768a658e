package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
)

// The name is checked as the controller checks it, with its words.
func TestAddNameUsesTheControllersRule(t *testing.T) {
	r := newRig(t)
	a := r.addDialog()
	for _, name := range []string{"../x", "a b", strings.Repeat("a", 200), "Agent", "x."} {
		a.name.SetText(name)
		want := ipc.CheckName("name", name)
		got := a.name.Validate()
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%q: the dialog says %v, the controller %v", name, got, want)
		}
		if !a.create.Disabled() {
			t.Errorf("%q: Create is enabled", name)
		}
	}
	a.name.SetText("agent-7")
	if a.name.Validate() != nil || a.create.Disabled() {
		t.Errorf("a good name leaves Create disabled: %v", a.name.Validate())
	}
}

func TestAddSuggestsAFreeNameAsAValue(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-1"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	a := r.addDialog()
	if a.name.Text != "agent-2" || a.name.PlaceHolder != "" {
		t.Errorf("name %q placeholder %q, want the value agent-2 and no placeholder", a.name.Text, a.name.PlaceHolder)
	}
}

func TestAddExplainsReuseAndRebuild(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-42"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	a := r.addDialog()
	a.name.SetText("agent-42")
	if !a.about.Visible() || !strings.Contains(a.about.Text, "reuses it as it is") {
		t.Errorf("an existing name with nothing asked says %q", a.about.Text)
	}
	a.memory.SetText("8GiB")
	if !strings.Contains(a.about.Text, "else rebuilds it, keeping its workspace") {
		t.Errorf("an existing name asked for more says %q", a.about.Text)
	}
	a.name.SetText("agent-43")
	if a.about.Visible() {
		t.Errorf("a new name still says %q", a.about.Text)
	}
}

// A create the controller refuses leaves the dialog open with what was
// typed and the controller's reason.
func TestAddKeepsTypedValuesOnARefusal(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Prefix: "team", Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	a := r.addDialog()
	a.name.SetText("team-agent")
	a.memory.SetText("2GiB")
	a.cpus.SetText("2")
	test.Tap(a.create)
	r.eventually("the refusal shows in the dialog", func() bool {
		return strings.Contains(a.about.Text, "taken by a sandbox of fleet")
	})
	if a.closed || a.name.Text != "team-agent" || a.memory.Text != "2GiB" || a.cpus.Text != "2" {
		t.Errorf("closed %v, fields %q %q %q: the typed values are lost", a.closed, a.name.Text, a.memory.Text, a.cpus.Text)
	}
	if a.create.Disabled() {
		t.Error("Create stays disabled after the refusal")
	}
}

// With every field wrong on a 640×400 window the dialog still fits: the
// form scrolls, the buttons stay on screen.
func TestAddNeverOverflowsTheWindow(t *testing.T) {
	r := newRig(t)
	r.u.win.Resize(fyne.NewSize(640, 400))
	a := r.addDialog()
	a.name.SetText("../x")
	a.memory.SetText("1")
	a.cpus.SetText("999")
	a.disk.SetText("1")
	a.idle.SetText("soon")
	a.life.SetText("later")
	a.form.Validate()
	top := r.u.win.Canvas().Overlays().Top().(*widget.PopUp)
	inner := top.Content
	canvas := r.u.win.Canvas().Size()
	if inner.Size().Height > canvas.Height || inner.Size().Width > canvas.Width || inner.MinSize().Height > canvas.Height {
		t.Errorf("the dialog is %v (min %v) on a %v window", inner.Size(), inner.MinSize(), canvas)
	}
	if b := buttons(top)["Create"]; b == nil || b.Position().Y+b.Size().Height > canvas.Height {
		t.Error("Create is off the window")
	}
}
