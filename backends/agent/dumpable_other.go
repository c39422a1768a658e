//go:build unix && !linux

package agent

// protectFromPeers does nothing where no agent runs beside its sandbox's
// own processes under one user.
func protectFromPeers() {}
