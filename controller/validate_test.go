package controller

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

func TestBadInputWritesNothing(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("a", 64)
	tests := []struct {
		name string
		req  ipc.CreateRequest
		want string
	}{
		{"empty name", ipc.CreateRequest{}, `name "" is not valid`},
		{"uppercase", ipc.CreateRequest{Name: "Work"}, "is not valid"},
		{"space", ipc.CreateRequest{Name: "my box"}, "is not valid"},
		{"slash", ipc.CreateRequest{Name: "a/b"}, "is not valid"},
		{"backslash", ipc.CreateRequest{Name: `a\b`}, "is not valid"},
		{"dot dot", ipc.CreateRequest{Name: ".."}, "is not valid"},
		{"leading dot", ipc.CreateRequest{Name: ".hidden"}, "is not valid"},
		{"path climb", ipc.CreateRequest{Name: "a..b"}, `no ".."`},
		{"trailing dot", ipc.CreateRequest{Name: "box."}, "trailing '.'"},
		{"leading dash", ipc.CreateRequest{Name: "-rf"}, "is not valid"},
		{"64 characters", ipc.CreateRequest{Name: long}, "is not valid"},
		{"unicode", ipc.CreateRequest{Name: "bøx"}, "is not valid"},
		{"nul byte", ipc.CreateRequest{Name: "a\x00b"}, "is not valid"},
		{"bad prefix", ipc.CreateRequest{Name: "w", Prefix: "CI"}, `prefix "CI" is not valid`},
		{"prefix with slash", ipc.CreateRequest{Name: "w", Prefix: "ci/x"}, "prefix"},
		{"too long with prefix", ipc.CreateRequest{Name: strings.Repeat("b", 61), Prefix: "ci"}, "too long with its prefix"},
		{"negative memory", ipc.CreateRequest{Name: "w", MemoryMiB: mib(-1)}, "memory must be 1 GiB to 64 GiB for a VM sandbox, got -1 MiB"},
		{"zero memory", ipc.CreateRequest{Name: "w", MemoryMiB: mib(0)}, "memory must be 1 GiB to 64 GiB"},
		{"memory under the VM floor", ipc.CreateRequest{Name: "w", MemoryMiB: mib(1023)}, "got 1023 MiB"},
		{"memory above the range", ipc.CreateRequest{Name: "w", MemoryMiB: mib(65537)}, "memory must be"},
		{"zero CPUs", ipc.CreateRequest{Name: "w", CPUs: intp(0)}, "CPUs must be 1 to 64, got 0"},
		{"negative CPUs", ipc.CreateRequest{Name: "w", CPUs: intp(-2)}, "CPUs must be"},
		{"65 CPUs", ipc.CreateRequest{Name: "w", CPUs: intp(65)}, "CPUs must be"},
		{"zero disk", ipc.CreateRequest{Name: "w", DiskMiB: mib(0)}, "disk must be 1 GiB to 2 TiB"},
		{"negative disk", ipc.CreateRequest{Name: "w", DiskMiB: mib(-8192)}, "disk must be"},
		{"tiny disk", ipc.CreateRequest{Name: "w", DiskMiB: mib(100)}, "disk must be"},
		{"huge disk", ipc.CreateRequest{Name: "w", DiskMiB: mib(4 << 20)}, "disk must be"},
		{"zero processes", ipc.CreateRequest{Name: "w", Pids: mib(0)}, "process limit must be 64 to 4194304, got 0"},
		{"too few processes for a shell", ipc.CreateRequest{Name: "w", Pids: mib(10)}, "process limit must be"},
		{"more processes than a kernel has", ipc.CreateRequest{Name: "w", Pids: mib(5 << 20)}, "process limit must be"},
		{"zero idle timeout", ipc.CreateRequest{Name: "w", IdleTimeoutMs: mib(0)}, "idle timeout must be more than 0"},
		{"negative idle timeout", ipc.CreateRequest{Name: "w", IdleTimeoutMs: mib(-5)}, "idle timeout"},
		{"zero max lifetime", ipc.CreateRequest{Name: "w", MaxLifetimeMs: mib(0)}, "max lifetime must be"},
		{"eleven-year lifetime", ipc.CreateRequest{Name: "w", MaxLifetimeMs: msOf(11 * 365 * 24 * time.Hour)}, "at most 10 years"},
		{"negative stop grace", ipc.CreateRequest{Name: "w", StopGraceMs: mib(-1)}, "stop grace must be"},
		{"two-hour stop grace", ipc.CreateRequest{Name: "w", StopGraceMs: msOf(2 * time.Hour)}, "stop grace must be"},
		{"unknown image", ipc.CreateRequest{Name: "w", Image: "windows95"}, `unknown image "windows95" (have base, python`},
		{"unknown backend", ipc.CreateRequest{Name: "w", Backend: "docker"}, `unknown backend "docker"`},
		{"unknown network", ipc.CreateRequest{Name: "w", Network: "bridge"}, `network "bridge": use on (outbound only), off (none) or host`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.c.Create(t.Context(), tt.req)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ipc.ErrInvalid) {
				t.Errorf("error %v is not ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tt.want)
			}
		})
	}
	if n := e.rows(); n != 0 {
		t.Errorf("%d rows written by bad input", n)
	}
	entries, _ := os.ReadDir(filepath.Join(e.root, "workspaces"))
	states, _ := os.ReadDir(filepath.Join(e.root, "sandboxes"))
	if len(entries)+len(states) != 0 || e.vm.Starts() != 0 {
		t.Errorf("bad input left %d workspaces, %d state folders, %d starts", len(entries), len(states), e.vm.Starts())
	}
}

// TestUnknownImageSaysHowToGetOne: a VM backend with no image yet is what
// a fresh install with QEMU has; its refusal names the images there are
// (or none) and the ways a VM image is made, never an import.
func TestUnknownImageSaysHowToGetOne(t *testing.T) {
	tests := []struct {
		name   string
		images []backends.Image
		want   string
	}{
		{"the default images", testvm.DefaultImages, `unknown image "tiny" (have base, python; build one with 'make guest-image' or pull one with 'sandboxdesk images pull')`},
		{"no image yet", nil, `unknown image "tiny" (have none yet; build one with 'make guest-image' or pull one with 'sandboxdesk images pull')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.vm.SetImages(tt.images)
			_, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "w", Image: "tiny"})
			if !errors.Is(err, ipc.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want %q", err, tt.want)
			}
		})
	}
}

func TestBadLimitsChangeNothing(t *testing.T) {
	e := newEnv(t)
	for _, v := range []int{0, -1, 1001} {
		if _, err := e.c.SetLimits(t.Context(), intp(v), nil); !errors.Is(err, ipc.ErrInvalid) {
			t.Errorf("SetLimits(%d): %v, want ErrInvalid", v, err)
		}
	}
	lim, err := e.c.Limits(t.Context())
	if err != nil || lim.CustomAtOnce != nil || lim.CustomRetained != nil {
		t.Errorf("limits after bad input: %+v, %v; want Recommended", lim, err)
	}
}

func TestLimits(t *testing.T) {
	e := newEnv(t, withHost(16, 4))
	lim, err := e.c.Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// 16 GiB, 4 CPUs, Standard: min(4, 3) = 3; no checkpoints: retained 3
	if lim.AtOnce != 3 || lim.Retained != 3 || lim.Recommended != (ipc.Recommended{AtOnce: 3, Retained: 3}) {
		t.Errorf("recommended limits %+v", lim)
	}
	lim, err = e.c.SetLimits(t.Context(), intp(5), intp(2))
	if err != nil {
		t.Fatal(err)
	}
	if lim.AtOnce != 5 || lim.Retained != 5 || *lim.CustomRetained != 2 {
		t.Errorf("custom 5 at once, 2 retained: %+v; retained is never below at once", lim)
	}
	lim, _ = e.c.SetLimits(t.Context(), nil, nil)
	if lim.AtOnce != 3 || lim.CustomAtOnce != nil {
		t.Errorf("back to Recommended: %+v", lim)
	}
	// an unmeasurable host with unset limits is an error
	broken := newEnv(t, withHost(0, 0))
	if _, err := broken.c.Limits(t.Context()); !errors.Is(err, ipc.ErrUnavailable) {
		t.Errorf("limits on an unmeasured host: %v, want ErrUnavailable", err)
	}
	if _, err := broken.c.Create(t.Context(), ipc.CreateRequest{Name: "w", MemoryMiB: mib(2048)}); err == nil {
		t.Error("a start on an unmeasured host with Recommended limits guessed")
	}
	if _, err := broken.c.SetLimits(t.Context(), intp(1), intp(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := broken.c.Create(t.Context(), ipc.CreateRequest{Name: "w", MemoryMiB: mib(2048)}); err != nil {
		t.Errorf("with custom limits an unmeasured host still runs sandboxes of a given size: %v", err)
	}
}
