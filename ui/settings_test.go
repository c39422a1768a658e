package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

func (r *rig) settings() *settingsDialog {
	r.t.Helper()
	lim, err := r.c.Limits(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	capa, err := r.c.Capacity(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	rg, err := r.c.RangesOf(r.t.Context(), "")
	if err != nil {
		r.t.Fatal(err)
	}
	s := newSettingsDialog(r.u, lim, r.defaults(), capa, rg)
	s.dlg.Show()
	r.t.Cleanup(s.dlg.Hide)
	return s
}

// save runs what the Save button sends, in the test's goroutine.
func (s *settingsDialog) saveNow(t *testing.T) {
	t.Helper()
	if !s.recheck() {
		t.Fatal("Save is refused")
	}
	lreq, err := s.limitsRequest()
	if err != nil {
		t.Fatal(err)
	}
	mreq, send, err := s.memoryRequest()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store(t.Context(), lreq, mreq, send); err != nil {
		t.Fatal(err)
	}
}

func TestUseRecommendedStoresRecommended(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.SetLimits(t.Context(), ptr(5), ptr(7)); err != nil {
		t.Fatal(err)
	}
	s := r.settings()
	if s.atOnceMode.Selected != custom || s.atOnce.Text != "5" {
		t.Fatalf("stored custom 5 shows as %q %q", s.atOnceMode.Selected, s.atOnce.Text)
	}
	test.Tap(s.useRecommended)
	s.saveNow(t)
	lim, _ := r.c.Limits(t.Context())
	if lim.CustomAtOnce != nil || lim.CustomRetained != nil {
		t.Errorf("after Use recommended and Save the limits are custom %v and %v, want Recommended (nothing stored)", deref(lim.CustomAtOnce), deref(lim.CustomRetained))
	}
}

func TestUntouchedDefaultMemorySurvivesSave(t *testing.T) {
	r := newRig(t)
	if err := r.c.SetDefaultMemory(t.Context(), ptr(int64(5120))); err != nil {
		t.Fatal(err)
	}
	s := r.settings()
	if s.memMode.Selected != always || s.memory.Text != "5 GiB" {
		t.Errorf("the stored 5 GiB shows as %q %q", s.memMode.Selected, s.memory.Text)
	}
	s.atOnceMode.SetSelected(custom) // change something else
	s.atOnce.SetText("2")
	s.saveNow(t)
	if d := r.defaults(); d.StoredMemoryMiB != 5120 {
		t.Errorf("after Save the stored default memory is %d MiB, want 5120", d.StoredMemoryMiB)
	}
	// touched, it is sent: back to sharing the budget
	s = r.settings()
	s.memMode.SetSelected(share)
	s.saveNow(t)
	if d := r.defaults(); d.StoredMemoryMiB != 0 {
		t.Errorf("Share the budget then Save left %d MiB stored", d.StoredMemoryMiB)
	}
}

func TestSettingsFieldsValidateInline(t *testing.T) {
	r := newRig(t)
	s := r.settings()
	top := r.u.win.Canvas().Overlays().Top()
	for _, tc := range []struct {
		field *dialogEntry
		pick  func()
		value string
		want  string
	}{
		{s.atOnce, func() { s.atOnceMode.SetSelected(custom) }, "0", "Sandboxes at once: a whole number, 1 to 1000"},
		{s.retained, func() { s.retMode.SetSelected(custom) }, "many", "Retained: a whole number, 1 to 1000"},
		{s.memory, func() { s.memMode.SetSelected(always) }, "100", "Default memory: 1 GiB to 64 GiB"},
	} {
		tc.pick()
		tc.field.SetText(tc.value)
		if !s.saveButton.Disabled() {
			t.Errorf("%q: Save is enabled", tc.value)
		}
		if !contains(labels(top), tc.want) {
			t.Errorf("%q: no line %q under the field; lines %q", tc.value, tc.want, labels(top))
		}
		tc.field.SetText("")
		tc.pick()
	}
	s.atOnceMode.SetSelected(s.atOnceMode.Options[0])
	s.retMode.SetSelected(s.retMode.Options[0])
	s.memMode.SetSelected(share)
	if s.saveButton.Disabled() {
		t.Errorf("with nothing custom Save is disabled; lines %q", labels(top))
	}
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if strings.TrimSpace(s) == want {
			return true
		}
	}
	return false
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
