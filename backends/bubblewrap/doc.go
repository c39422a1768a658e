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
// perf, userfaultfd, terminal injection, rare socket families, setuid and
// setgid bits (what a sandbox writes is a host user's file) and, unless
// the spec asks for them, nested user namespaces. No descriptor of the
// controller's crosses but those handed down on purpose: every other one
// is made close-on-exec before bwrap starts. Of the controller's
// environment only the CA variables cross, as files the sandbox can read
// (trust.go); the agent adds the PATH and package manager settings a
// command gets.
//
// An imported image is hostile: it is unpacked, checked and read at each
// start through descriptors of its own folders, never following a link it
// holds, and an image that bwrap could use only by following one (an /etc
// that is a link) is refused, as is one with a control character in a
// name (a terminal would obey it when an error shows the name) or a file
// that would leave less than 1 GiB, or a twentieth, of the disk free.
//
// The controller reaches the agent only through ROOT/bubblewrap/ID, a
// folder private to the controller's user and never bound into a
// sandbox: it binds the agent's socket there and hands the listening
// socket to bwrap, so nothing a sandbox can write is ever a path the
// controller dials. The same folder holds bwrap's pid file, written
// before the start script lets bwrap run, so every sandbox process is
// known to the next controller however the last one ended, and bwrap's
// log, which bwrap holds open and which is closed to every user (mode 0)
// once the agent answers, so no process of the sandbox opens it again
// through /proc/1/fd. A sandbox
// whose bwrap ends unasked is reported to the controller as stopped, with
// the reason, and whatever it left is killed.
//
// Network "on" is outbound only: slirp4netns, started as the sandbox's
// host user inside the user namespace that owns the sandbox's network
// namespace, gives it a NAT (10.0.2.100, gateway 10.0.2.2, DNS forwarder
// 10.0.2.3) that never leads to the host's loopback, and the sandbox's
// abstract sockets and loopback are its own. The helper is in a session of
// its own, so it outlives a controller that dies, and ends when the
// sandbox's bwrap does (it holds the other end of the helper's exit pipe).
// "off" is an empty network namespace; "host" the host's own, when asked.
//
// When the app runs as root, bwrap is started under an unprivileged host
// uid: inside a user namespace made by root, the sandbox user would be
// host root, its files root's, and root-only host files readable. Each
// sandbox gets a uid of its own from a reserved block, recorded in a
// registry every root on the host shares, so no two sandboxes (and no
// host user) share one: the owner of a user namespace holds every
// capability inside it. A launcher (this binary, run again) mounts only
// the sandbox's own folders for that uid, and the workspace through an
// idmapped mount, so what the sandbox makes there is the workspace's
// person's (the user who ran sudo, or root) and what they put there is
// writable inside. The sandbox's folder and its etc stay root's; every
// file the backend writes there is written anew, never through a link.
package bubblewrap
