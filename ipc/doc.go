// Package ipc is the vocabulary the controller and its clients speak: the
// requests and their replies, events, sandbox states, error kinds and the
// rule for names, the protocol's version and handshake, and the encoding
// of request and reply lines. It also declares the two sides of a
// conversation, Handler (what a controller answers) and Client (what a
// front end calls). Every number a person sees (defaults, ranges,
// capacity) is computed by the controller and reaches the UI and the CLI
// as one of these types, so neither keeps a copy of its own.
//
// It does no I/O: the socket, the Windows named pipe and the in-process
// channel that carry these messages live in package wire, so the
// controller depends on the words and not on a transport.
//
// Field names are the camelCase JSON names the CLI's --json output promises;
// changing one is a breaking change for scripts.
package ipc
