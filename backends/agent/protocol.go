// Package agent runs commands inside a sandbox on behalf of the
// controller. The agent is the sandbox's first process (the bubblewrap
// backend starts it as the sandbox's command; a VM would start it at
// boot); the controller connects to its socket once per command.
//
// Running every command as a child of one agent, rather than entering the
// sandbox's namespaces from outside, gives each command exactly the
// sandbox's namespaces, user, cgroup and dropped capabilities, and lets a
// background process started by one command live on for the next.
//
// The protocol, per connection: the client sends one JSON line (a
// Request), then both sides exchange the frames of package stream: stdin
// and signals one way, stdout, stderr and one exit status the other.
package agent

import "sandboxdesk/stream"

// Command is the first argument that turns the sandboxdesk binary (or a
// test binary) into the agent: "sandboxdesk __sandboxdesk_agent SOCKET".
const Command = "__sandboxdesk_agent"

// InheritedPrefix names, in the agent's argument, a listening socket it
// inherits instead of a path it listens on: "fd:3". A path inside the
// sandbox can be replaced by anything the sandbox runs; a socket the
// controller bound where the sandbox cannot see is reached only by the
// controller, and accepted on only by the agent.
const InheritedPrefix = "fd:"

// ReadyPrefix names, in the agent's optional second argument, an inherited
// descriptor the agent writes one byte to and closes once it accepts
// calls: "ready:4". The backend learns the sandbox is up from the sandbox
// itself, and from the pipe's end of file that it never will be, with no
// polling.
const ReadyPrefix = "ready:"

// Request starts a command, or asks for an operation on the sandbox.
type Request struct {
	// Op is "exec" (the default), "terminate" (ask every process to end,
	// wait up to GraceMs, then report) or "ping".
	Op      string   `json:"op,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	GraceMs int64    `json:"graceMs,omitempty"`
	// TTY runs the command on a pseudo-terminal of this size.
	TTY *stream.Size `json:"tty,omitempty"`
}

// RefusedInvalid is the kind of a refusal for bad input (a folder that is
// not there): the caller's mistake, not the sandbox's.
const RefusedInvalid = "invalid"
