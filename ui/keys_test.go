package ui

import (
	"context"
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"sandboxdesk/ipc"
)

// Return in the Remove confirm acts on the confirm (it removes), never on
// the window behind it, where Return opens a shell.
func TestReturnInAConfirmDoesNotReachTheWindow(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-42"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	r.u.main.list.Select(0)
	r.press(fyne.KeyDelete)
	top := r.u.win.Canvas().Overlays().Top()
	if top == nil || r.shown() != 1 {
		t.Fatal("Delete did not ask to remove")
	}
	b := buttons(top)
	if b["Cancel"] == nil || b["Remove"] == nil || len(b) != 2 {
		t.Errorf("the confirm's buttons are %v, want Cancel and Remove", keys(b))
	}
	r.press(fyne.KeyDelete) // a second Delete means nothing to the confirm
	if r.shown() != 1 {
		t.Errorf("Delete in the confirm opened %d dialogs", r.shown())
	}
	r.press(fyne.KeyReturn)
	r.eventually("Return removed agent-42", func() bool {
		_, err := r.c.Inspect(context.Background(), ipc.Ref{Name: "agent-42"})
		return errors.Is(err, ipc.ErrNotFound)
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.shells) != 0 {
		t.Errorf("Return in the confirm reached the window: it opened a shell in %v", r.shells)
	}
	if r.shown() != 0 {
		t.Error("the confirm is still showing")
	}
}

// Escape closes the confirm and an error dialog; keys in an error dialog
// stay there.
func TestEscapeClosesDialogs(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-42"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	r.u.main.list.Select(0)
	r.press(fyne.KeyDelete)
	r.press(fyne.KeyEscape)
	if r.shown() != 0 {
		t.Fatal("Escape left the confirm open")
	}
	if _, err := r.c.Inspect(t.Context(), ipc.Ref{Name: "agent-42"}); err != nil {
		t.Errorf("Escape removed the sandbox: %v", err)
	}

	r.u.errorDialog("Start agent-42", failure("Start agent-42", context.DeadlineExceeded)).Show()
	for _, k := range []fyne.KeyName{fyne.KeyDelete, fyne.KeyReturn} {
		r.press(k)
		if k == fyne.KeyDelete && r.shown() != 1 {
			t.Errorf("Delete in an error dialog reached the window")
		}
	}
	if r.shown() != 0 {
		t.Error("Return left the error dialog open")
	}
	r.u.errorDialog("Start agent-42", failure("Start agent-42", context.DeadlineExceeded)).Show()
	r.press(fyne.KeyEscape)
	if r.shown() != 0 {
		t.Error("Escape left the error dialog open")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.shells) != 0 {
		t.Errorf("keys in dialogs reached the window: shells %v", r.shells)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A click gives the list the keyboard: Return there still opens the
// selected sandbox's shell, and Delete asks to remove it.
func TestKeysOnTheFocusedList(t *testing.T) {
	r := newRig(t)
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "agent-42"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	r.u.main.list.Select(0)
	r.u.win.Canvas().Focus(r.u.main.list)
	r.u.main.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	r.mu.Lock()
	shells := append([]string(nil), r.shells...)
	r.mu.Unlock()
	if len(shells) != 1 || shells[0] != "agent-42" {
		t.Errorf("Return on the list opened shells %v, want agent-42", shells)
	}
	r.u.main.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDelete})
	if r.shown() != 1 {
		t.Error("Delete on the list did not ask to remove")
	}
}

// Without a tray the window is the app: closing it quits, through the
// desktop's stop of the sandboxes, saying so meanwhile. The File menu has
// Quit with Ctrl+Q.
func TestClosingTheWindowWithoutATrayQuits(t *testing.T) {
	r := newRig(t) // no tray
	quit := make(chan struct{})
	r.u.OnQuit = func() { close(quit) }
	r.u.closeWindow() // what the window manager's close button runs
	<-quit
	if got := r.u.main.status.Text; got != "Stopping the sandboxes before quitting…" {
		t.Errorf("while quitting the window says %q", got)
	}
	r.u.quit() // a second Quit (Ctrl+Q while stopping) does nothing more
	file := r.u.win.MainMenu().Items[0]
	last := file.Items[len(file.Items)-1]
	sc, ok := last.Shortcut.(*desktop.CustomShortcut)
	if last.Label != "Quit" || !ok || sc.KeyName != fyne.KeyQ || sc.Modifier != fyne.KeyModifierShortcutDefault {
		t.Errorf("the File menu ends with %q %v, want Quit with Ctrl+Q", last.Label, last.Shortcut)
	}
}
