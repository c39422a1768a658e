//go:build linux

package qemu

import (
	"context"
	"strings"
	"testing"

	"sandboxdesk/backends"

	"sandboxdesk/controller"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// TestControllerSharesMemoryBetweenRealVMs runs the memory rules of
// DESIGN 3.1 on real machines: on a host measured at 8 GiB (a budget of 4
// GiB), a VM alone gets 4 GiB, one beside it the 2 GiB floor, two
// launched together 2 GiB each; every figure the controller counts is
// what QEMU says the machine has.
func TestControllerSharesMemoryBetweenRealVMs(t *testing.T) {
	root := t.TempDir()
	b := newBackend(t, t.TempDir())
	ctx := context.Background()
	c, err := controller.Open(ctx, controller.Options{
		Root:           root,
		Backends:       map[string]controller.Backend{"vm": b},
		DefaultBackend: "vm",
		Measure: func(context.Context) (host.Info, error) {
			return host.Info{CPUCount: 4, EffectiveCPUCores: 4, TotalMemoryBytes: 8 << 30, AvailableDiskBytes: 100 << 30}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.RemoveAll(ctx, "")
		c.Close()
	}()

	// the host's recommendation would run one Standard sandbox at a time
	two := 2
	if _, err := c.SetLimits(ctx, &two, nil); err != nil {
		t.Fatal(err)
	}

	// held is what the controller counts for name, checked against QMP.
	held := func(name string) int64 {
		t.Helper()
		sb, err := c.Inspect(ctx, ipc.Ref{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.MemoryMiB(ctx, sb.ID)
		if err != nil {
			t.Fatalf("%s: QMP read-back: %v", name, err)
		}
		if got != sb.ReservedMiB {
			t.Errorf("%s: the controller counts %d MiB, QEMU says the machine has %d", name, sb.ReservedMiB, got)
		}
		return sb.ReservedMiB
	}

	for _, name := range []string{"a", "b"} {
		if _, err := c.Create(ctx, ipc.CreateRequest{Name: name, Image: "tiny", Network: "off"}); err != nil {
			t.Fatal(err)
		}
	}
	if a, bb := held("a"), held("b"); a != 4096 || bb != 2048 {
		t.Errorf("started one after the other: a %d, b %d MiB; want 4096 alone, then the 2048 floor", a, bb)
	}
	for _, name := range []string{"a", "b"} {
		sb, err := c.Stop(ctx, ipc.Ref{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		// a checkpoint restores the memory it was built with; these two
		// boot cold to take their share
		if err := b.DropCheckpoint(ctx, sb.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Launch(ctx, []ipc.Ref{{Name: "a"}, {Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	if a, bb := held("a"), held("b"); a != 2048 || bb != 2048 {
		t.Errorf("launched together: a %d, b %d MiB; want the same share, 2048 each", a, bb)
	}
	// --network off: the machine has no network device at all
	var out strings.Builder
	code, err := c.Exec(ctx, ipc.Ref{Name: "a"}, backends.ExecRequest{Args: []string{"ls", "/sys/class/net"}, Stdout: &out})
	if err != nil || code != 0 || strings.TrimSpace(out.String()) != "lo" {
		t.Errorf("network off: exit %d, %v, interfaces %q; want lo alone", code, err, out.String())
	}
}
