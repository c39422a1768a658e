package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/version"
)

// memLogin is a login entry held in memory; fail makes every call fail
// as a desktop whose autostart folder cannot be written would.
type memLogin struct {
	on   bool
	fail error
	sets int
}

func (m *memLogin) Enabled() (bool, error) { return m.on, m.fail }
func (m *memLogin) Enable() error          { return m.set(true) }
func (m *memLogin) Disable() error         { return m.set(false) }

func (m *memLogin) set(on bool) error {
	if m.fail != nil {
		return m.fail
	}
	m.on, m.sets = on, m.sets+1
	return nil
}

func TestOpenAtLoginSwitchWritesOnSave(t *testing.T) {
	r := newRig(t)
	login := &memLogin{}
	r.u.Login = login
	s := r.settings()
	if s.login.check.Checked || s.login.check.Disabled() {
		t.Fatalf("with no login entry the switch shows checked=%v disabled=%v", s.login.check.Checked, s.login.check.Disabled())
	}
	test.Tap(s.login.check)
	if login.on {
		t.Fatal("the entry was written before Save")
	}
	s.saveNow(t)
	if !login.on {
		t.Fatal("switched on and saved, the login entry is not there")
	}
	s.dlg.Hide()

	s = r.settings()
	if !s.login.check.Checked {
		t.Fatal("reopened, the switch does not show the entry that is there")
	}
	s.atOnceMode.SetSelected(custom) // a save that leaves the switch alone
	s.atOnce.SetText("3")
	s.saveNow(t)
	if !login.on || login.sets != 1 {
		t.Errorf("a save with the switch untouched changed the entry: on=%v, %d writes", login.on, login.sets)
	}
	test.Tap(s.login.check)
	s.saveNow(t)
	if login.on {
		t.Error("switched off and saved, the login entry is still there")
	}
}

func TestOpenAtLoginSaysWhatFailed(t *testing.T) {
	r := newRig(t)
	login := &memLogin{}
	r.u.Login = login
	s := r.settings()
	test.Tap(s.login.check)
	login.fail = errors.New("write the autostart entry: permission denied")
	lreq, _ := s.limitsRequest()
	mreq, send, _ := s.memoryRequest()
	err := s.store(t.Context(), lreq, mreq, send)
	if err == nil || err.Error() != "open at login: write the autostart entry: permission denied" {
		t.Errorf("a failed write says %v", err)
	}
	s.dlg.Hide()

	// an entry whose state cannot be read is not offered as off or on
	s = r.settings()
	top := r.u.win.Canvas().Overlays().Top()
	if !s.login.check.Disabled() {
		t.Error("the switch is enabled though the entry cannot be read")
	}
	if want := "Cannot read the login entry: write the autostart entry: permission denied"; !contains(labels(top), want) {
		t.Errorf("no line %q; lines %q", want, labels(top))
	}
}

func TestSettingsWithoutLoginEntryHasNoSwitch(t *testing.T) {
	r := newRig(t)
	s := r.settings()
	if s.login != nil {
		t.Fatal("a switch for an app with no login entry")
	}
	for _, x := range test.LaidOutObjects(r.u.win.Canvas().Overlays().Top()) {
		if c, ok := x.(*widget.Check); ok && strings.Contains(c.Text, "log in") {
			t.Errorf("the check %q shows", c.Text)
		}
	}
}

func TestAboutShowsTheVersion(t *testing.T) {
	old := version.Version
	t.Cleanup(func() { version.Version = old })
	version.Version = "v1.2.0-3-gabc1234"
	r := newRig(t)
	r.settings()
	top := r.u.win.Canvas().Overlays().Top()
	for _, want := range []string{"sandboxdesk v1.2.0-3-gabc1234", "Licence: " + licence} {
		if !contains(labels(top), want) {
			t.Errorf("About has no line %q; lines %q", want, labels(top))
		}
	}
	var link *widget.Hyperlink
	for _, x := range test.LaidOutObjects(top) {
		if h, ok := x.(*widget.Hyperlink); ok {
			link = h
		}
	}
	if link == nil || link.URL == nil || link.URL.String() != homepage {
		t.Errorf("About links to %v, want %s", link, homepage)
	}
}
