package agent

import "golang.org/x/sys/unix"

// protectFromPeers makes the agent undumpable: a process of the same
// user without CAP_SYS_PTRACE can no longer attach to it or copy its
// descriptors. Commands it starts are dumpable again after their exec.
func protectFromPeers() { unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
