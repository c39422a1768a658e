package ipc

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorKinds(t *testing.T) {
	err := Errorf(ErrInvalid, "name %q is not valid", "A")
	if err.Error() != `name "A" is not valid` {
		t.Errorf("message %q carries more than the words", err)
	}
	if !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotFound) {
		t.Error("kind not matched by errors.Is")
	}
	if KindName(err) != "invalid" || KindByName("invalid") != ErrInvalid || KindName(errors.New("x")) != "" {
		t.Error("kind names do not round-trip")
	}
	wrapped := Errorf(ErrUnavailable, "list images: %w", fs.ErrPermission)
	if !errors.Is(wrapped, fs.ErrPermission) || !errors.Is(wrapped, ErrUnavailable) {
		t.Error("%w cause lost")
	}
}

func TestStateActive(t *testing.T) {
	for s, want := range map[State]bool{
		StateStarting: true, StateRunning: true, StateStopping: true,
		StateQueued: false, StateStopped: false, StateSuspended: false, StateBroken: false,
	} {
		if s.Active() != want {
			t.Errorf("%s.Active() = %v", s, !want)
		}
	}
}
