// Package wire carries the messages of package ipc between a controller
// and its clients: the unix socket in the root (on Windows, a named pipe
// derived from the root that admits only its user), one JSON line per
// request and reply with exec streams framed by package stream, and an
// in-process transport over a channel for the desktop app, which serves
// the same ipc.Handler.
//
// It knows nothing of sandboxes: what the messages mean is package ipc's,
// and what answers them is the controller's.
package wire
