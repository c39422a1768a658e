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
// Nothing of the controller's reaches inside: bwrap (the sandbox's pid 1,
// whose environment stays readable there) starts with only PATH;
// it starts with a new, empty session keyring; /proc/keys is masked; and
// a seccomp filter (seccomp_linux.go) denies the keyrings, io_uring, eBPF,
// perf, userfaultfd, terminal injection, rare socket families and, unless
// the spec asks for them, nested user namespaces. Of the controller's
// environment only the CA variables cross, as files the sandbox can read
// (trust.go); the agent adds the PATH and package manager settings a
// command gets.
//
// When the app runs as root, bwrap is started under an unprivileged host
// uid: inside a user namespace made by root, the sandbox user would be
// host root, its files root's, and root-only host files readable.
package bubblewrap
