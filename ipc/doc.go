// Package ipc holds the messages that travel between the controller and
// its clients: the desktop UI in the same process, and the CLI over a local
// socket. Every number a person sees (defaults, ranges, capacity) is
// computed by the controller and reaches the UI and the CLI as one of these
// types, so neither keeps a copy of its own.
//
// Field names are the camelCase JSON names the CLI's --json output promises;
// changing one is a breaking change for scripts.
package ipc
