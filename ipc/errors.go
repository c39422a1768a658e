package ipc

import (
	"errors"
	"fmt"
)

// The kinds of error a client can act on, checked with errors.Is. The CLI
// maps each to one exit status; the socket carries the kind by name.
var (
	ErrInvalid     = errors.New("invalid argument") // bad input: nothing changed
	ErrNotFound    = errors.New("not found")
	ErrConflict    = errors.New("conflict")    // the request clashes with what exists
	ErrUnavailable = errors.New("unavailable") // the host or a backend cannot do it now
	ErrExhausted   = errors.New("resource exhausted")
)

var kinds = map[string]error{
	"invalid":     ErrInvalid,
	"notFound":    ErrNotFound,
	"conflict":    ErrConflict,
	"unavailable": ErrUnavailable,
	"exhausted":   ErrExhausted,
}

// Error is an error of one kind, worded for the person who reads it: its
// message is all of Error(), with no kind prefixed.
type Error struct {
	Kind    error
	Message string
	cause   error
}

func (e *Error) Error() string        { return e.Message }
func (e *Error) Is(target error) bool { return target == e.Kind }
func (e *Error) Unwrap() error        { return e.cause }

// Errorf makes an error of the given kind. A %w verb in format wraps its
// argument as the cause, as fmt.Errorf does.
func Errorf(kind error, format string, args ...any) error {
	wrapped := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Message: wrapped.Error(), cause: errors.Unwrap(wrapped)}
}

// KindName is the wire name of err's kind, or "" for none.
func KindName(err error) string {
	for name, k := range kinds {
		if errors.Is(err, k) {
			return name
		}
	}
	return ""
}

// KindByName is the kind named on the wire, or nil.
func KindByName(name string) error { return kinds[name] }
