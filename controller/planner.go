package controller

import (
	"context"
	"runtime"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// HostPlanner answers "what would a new sandbox get" and "how many does
// this host carry" from a fresh measurement of the host, with nothing yet
// running. It is what the desktop shows before any sandbox exists.
type HostPlanner struct {
	Root string
}

// Defaults measures the host and applies the memory rule for a newcomer
// with nothing else running.
func (p HostPlanner) Defaults(ctx context.Context) (ipc.Defaults, error) {
	info, err := host.Measure(ctx, p.Root)
	if err != nil {
		return ipc.Defaults{}, err
	}
	return PlanDefaults(info, 0, 0), nil
}

// Capacity measures the host and applies the capacity rule for the
// Standard size.
func (p HostPlanner) Capacity(ctx context.Context) (ipc.Capacity, error) {
	info, err := host.Measure(ctx, p.Root)
	if err != nil {
		return ipc.Capacity{}, err
	}
	cp := PlatformCheckpoints()
	rec, err := RecommendCapacity(info, StandardSize, cp)
	if err != nil {
		return ipc.Capacity{}, err
	}
	return ipc.Capacity{Host: info, Size: StandardSize, Checkpoints: cp, Recommended: rec}, nil
}

// PlatformCheckpoints is whether the sandbox backend of this platform keeps
// checkpoints: only vz does, and only on Apple silicon.
func PlatformCheckpoints() bool {
	return runtime.GOOS == "darwin" && runtime.GOARCH == "arm64"
}
