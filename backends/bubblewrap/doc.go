// Package bubblewrap is the Linux sandbox backend. A running sandbox is one
// long-lived bwrap process tree: its own user, pid, ipc and uts
// namespaces (and network namespace when the network is off), a new
// session, every capability dropped, the host's /usr read-only or an
// imported root file system, and nothing of the host's homes. Its first
// process is the sandboxdesk agent, which runs each command the controller
// sends as an unprivileged user, so a background process started by one
// command is still there for the next.
//
// The workspace is bound read-write at /workspace; the sandbox's own
// folder holds its home, /tmp and generated /etc files, so what a command
// installs survives a stop and a start. Memory and CPU limits go through a
// cgroup where the host lets us make one, and are reported as not
// enforced where it does not. Nothing is reserved: a bubblewrap sandbox
// counts for nothing in the memory budget.
//
// The controller reaches the agent only through ROOT/bubblewrap/ID, a
// folder private to the controller's user and never bound into a
// sandbox: it binds the agent's socket there and hands the listening
// socket to bwrap, so nothing a sandbox can write is ever a path the
// controller dials. The same folder holds bwrap's pid file, written
// before the start script lets bwrap run, so every sandbox process is
// known to the next controller however the last one ended. A sandbox
// whose bwrap ends unasked is reported to the controller as stopped, with
// the reason, and whatever it left is killed.
//
// When the app runs as root, bwrap is started under an unprivileged host
// uid: inside a user namespace made by root, the sandbox user would be
// host root, its files root's, and root-only host files readable.
package bubblewrap
