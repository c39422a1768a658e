package rules

import (
	"errors"
	"fmt"
	"math"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// StandardSize is the sandbox the recommendation assumes unless told
// otherwise: 2 CPUs, 4 GiB memory, 8 GiB disk.
var StandardSize = ipc.Size{CPUs: 2, MemoryMiB: 4 * mibPerGiB, DiskMiB: 8 * mibPerGiB}

// hostReserveMiB is memory left to the host itself before sandboxes count.
const hostReserveMiB = 2 * mibPerGiB

// ErrHostUnmeasured means the capacity rule was asked about a host whose
// CPUs or memory are unknown. With no explicit limit to fall back on, that
// is an error, never a silent guess.
var ErrHostUnmeasured = errors.New("host not measured")

// RecommendCapacity is how many sandboxes of size s this host should run at
// once, and how many it should keep checkpointed.
//
// CPUs count twice (agent sandboxes mostly wait on a model); memory is never
// overcommitted, and 2 GiB stay with the host. A backend that checkpoints
// may retain as many as half the free disk holds; one that does not retains
// exactly as many as run.
func RecommendCapacity(h host.Info, s ipc.Size, checkpoints bool) (ipc.Recommended, error) {
	if h.Cores() <= 0 || h.TotalMemoryBytes == 0 {
		return ipc.Recommended{}, fmt.Errorf("recommend capacity: %w (CPUs %v, memory %d bytes)", ErrHostUnmeasured, h.Cores(), h.TotalMemoryBytes)
	}
	if s.CPUs < 1 || s.MemoryMiB < 1 || s.DiskMiB < 1 {
		return ipc.Recommended{}, fmt.Errorf("recommend capacity: sandbox size needs at least 1 CPU, 1 MiB memory and 1 MiB disk, got %+v", s)
	}
	const mib = 1 << 20
	byCPU := math.Floor(2 * h.Cores() / float64(s.CPUs))
	byMemory := math.Floor((float64(h.TotalMemoryBytes)/mib - hostReserveMiB) / float64(s.MemoryMiB))
	atOnce := max(1, int(min(byCPU, byMemory)))
	retained := atOnce
	if checkpoints {
		byDisk := int(math.Floor(float64(h.AvailableDiskBytes) / mib / 2 / float64(s.DiskMiB)))
		retained = max(atOnce, byDisk)
	}
	return ipc.Recommended{AtOnce: atOnce, Retained: retained}, nil
}

// PlanDefaults answers "what would a new sandbox get now?" for a host with
// active sandboxes starting or running and committedMiB reserved by them.
// The newcomer is counted, so this is exactly what the start path hands out.
func PlanDefaults(h host.Info, active int, committedMiB int64) ipc.Defaults {
	return ipc.Defaults{
		MemoryMiB:    DefaultMemoryMiB(h.TotalMemoryBytes, active+1, committedMiB),
		CPUs:         DefaultCPUs(h.Cores()),
		DiskMiB:      StandardSize.DiskMiB,
		BudgetMiB:    BudgetMiB(h.TotalMemoryBytes),
		CommittedMiB: committedMiB,
		Active:       active,
	}
}
