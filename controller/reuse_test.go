package controller

import (
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestReuseRule walks the reuse rule's examples in order on one name.
func TestReuseRule(t *testing.T) {
	// host processes, so 256 MiB is a value a person may type
	e := openEnv(t, testvm.Config{Processes: true})
	w := func(r ipc.CreateRequest) ipc.CreateRequest { r.Name = "w"; return r }

	big := e.create(w(ipc.CreateRequest{MemoryMiB: mib(2048)}))
	small := e.create(w(ipc.CreateRequest{MemoryMiB: mib(256)}))
	if small.ID != big.ID {
		t.Fatalf("held 2 GiB, asked 256 MiB: rebuilt (%s -> %s), want reused", big.ID, small.ID)
	}
	e.writeWorkspace("w", "notes.txt", "keep me")

	bigger := e.create(w(ipc.CreateRequest{MemoryMiB: mib(4096)}))
	if bigger.ID == big.ID {
		t.Fatal("held 2 GiB, asked 4 GiB: reused, want rebuilt")
	}
	if got, ok := e.readWorkspace("w", "notes.txt"); !ok || got != "keep me" {
		t.Fatalf("workspace file after rebuild: %q, %v", got, ok)
	}
	if bigger.MemoryMiB != 4096 || bigger.MemoryLimitMiB != 4096 || bigger.ReservedMiB != 0 || bigger.State != ipc.StateRunning {
		t.Errorf("rebuilt sandbox %+v, want 4096 own and as limit, nothing reserved, running", bigger)
	}

	python := e.create(w(ipc.CreateRequest{MemoryMiB: mib(4096), Image: "python"}))
	if python.ID == bigger.ID || python.Image != "python" {
		t.Fatalf("different image: %s/%s, want rebuilt on python", python.ID, python.Image)
	}

	hour := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(time.Hour)}))
	if hour.ID == python.ID {
		t.Fatal("held no max lifetime, asked 1h: reused, want rebuilt (no ceiling does not undercut 1h)")
	}
	minute := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(time.Minute)}))
	if minute.ID == hour.ID {
		t.Fatal("held max lifetime 1h, asked 1m: reused, want rebuilt")
	}
	again := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(2 * time.Minute)}))
	if again.ID != minute.ID {
		t.Fatal("held 1m, asked 2m: rebuilt, want reused")
	}

	three := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(3 * time.Second)}))
	if three.ID == minute.ID {
		t.Fatal("held 1m, asked 3s: reused, want rebuilt")
	}
	e.clock.Advance(4 * time.Second)
	old := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(3 * time.Second)}))
	if old.ID == three.ID {
		t.Fatal("held 3s and already 4s old, asked 3s: reused, want rebuilt")
	}
	if got, ok := e.readWorkspace("w", "notes.txt"); !ok || got != "keep me" {
		t.Fatalf("workspace file after five rebuilds: %q, %v", got, ok)
	}

	fresh := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(3 * time.Second), Replace: true}))
	if fresh.ID == old.ID {
		t.Fatal("replace kept the id")
	}
	if _, ok := e.readWorkspace("w", "notes.txt"); ok {
		t.Fatal("replace kept the workspace file")
	}
	after := e.create(w(ipc.CreateRequest{Image: "python", MaxLifetimeMs: msOf(3 * time.Second)}))
	if after.ID != fresh.ID {
		t.Fatal("the create after a replace rebuilt; replace must not be stored")
	}
	if n := e.rows(); n != 1 {
		t.Errorf("%d rows after many rebuilds of one name, want 1", n)
	}
}

func TestCreateStartsStoppedMatch(t *testing.T) {
	e := newEnv(t)
	first := e.create(ipc.CreateRequest{Name: "w"})
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "w"}); err != nil {
		t.Fatal(err)
	}
	again := e.create(ipc.CreateRequest{Name: "w"})
	if again.ID != first.ID || again.State != ipc.StateRunning {
		t.Errorf("create of a stopped match: %s %s, want %s running", again.ID, again.State, first.ID)
	}
}

func TestServesTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	base := record{Backend: "vm", Image: "base", ImageDigest: "sha256:a", Network: backends.NetworkOn, MemoryMiB: 2048, CPUs: 2, DiskMiB: 8192,
		IdleTimeout: time.Minute, MaxLifetime: time.Hour, CreatedAt: now.Add(-10 * time.Minute)}
	ask := shape{Backend: "vm", Image: imageOf("base", "sha256:a"), Network: backends.NetworkOn}
	h := held{memoryMiB: 2048, cpus: 2, diskMiB: 8192}
	tests := []struct {
		name string
		edit func(r *record, s *shape)
		want bool
	}{
		{"unset asks are met by anything", func(r *record, s *shape) {}, true},
		{"held 2 GiB, asked 256 MiB", func(r *record, s *shape) { s.MemoryMiB = 256 }, true},
		{"held 2 GiB, asked 2 GiB", func(r *record, s *shape) { s.MemoryMiB = 2048 }, true},
		{"held 2 GiB, asked 4 GiB", func(r *record, s *shape) { s.MemoryMiB = 4096 }, false},
		{"held 2 CPUs, asked 3", func(r *record, s *shape) { s.CPUs = 3 }, false},
		{"held 2 CPUs, asked 2", func(r *record, s *shape) { s.CPUs = 2 }, true},
		{"held 8 GiB disk, asked 16", func(r *record, s *shape) { s.DiskMiB = 16384 }, false},
		{"own 512 processes, asked 256", func(r *record, s *shape) { r.Pids, s.Pids = 512, 256 }, true},
		{"own 512 processes, asked 1024", func(r *record, s *shape) { r.Pids, s.Pids = 512, 1024 }, false},
		{"default processes, running at an enforced 4096, asked 1024", func(r *record, s *shape) { r.PidsLimit, s.Pids = 4096, 1024 }, true},
		{"default processes, running at an enforced 4096, asked 8192", func(r *record, s *shape) { r.PidsLimit, s.Pids = 4096, 8192 }, false},
		{"default processes, stopped, asked 1024", func(r *record, s *shape) { s.Pids = 1024 }, false},
		{"held 8 GiB disk, asked 1", func(r *record, s *shape) { s.DiskMiB = 1024 }, true},
		{"idle 1m, asked 2m", func(r *record, s *shape) { s.IdleTimeout = 2 * time.Minute }, true},
		{"idle 1m, asked 30s", func(r *record, s *shape) { s.IdleTimeout = 30 * time.Second }, false},
		{"no idle timeout, asked 1m", func(r *record, s *shape) { r.IdleTimeout, s.IdleTimeout = 0, time.Minute }, false},
		{"max lifetime 1h, asked 1m", func(r *record, s *shape) { s.MaxLifetime = time.Minute }, false},
		{"max lifetime 1h, asked 2h", func(r *record, s *shape) { s.MaxLifetime = 2 * time.Hour }, true},
		{"10 min old, asked max lifetime 1h", func(r *record, s *shape) { s.MaxLifetime = time.Hour }, true},
		{"held 3s, 4s old, asked 3s", func(r *record, s *shape) {
			r.MaxLifetime, r.CreatedAt, s.MaxLifetime = 3*time.Second, now.Add(-4*time.Second), 3*time.Second
		}, false},
		{"other image", func(r *record, s *shape) { s.Image = imageOf("python", "sha256:b") }, false},
		{"same image name, new content", func(r *record, s *shape) { s.Image = imageOf("base", "sha256:c") }, false},
		{"other backend", func(r *record, s *shape) { s.Backend = "bubblewrap" }, false},
		{"network off asked", func(r *record, s *shape) { s.Network = backends.NetworkOff }, false},
		{"the host's network asked of an outbound-only sandbox", func(r *record, s *shape) { s.Network = backends.NetworkHost }, false},
		{"outbound only asked of a host-network sandbox", func(r *record, s *shape) { r.Network = backends.NetworkHost }, false},
	}
	for _, tt := range tests {
		r, s := base, ask
		tt.edit(&r, &s)
		if got, why := serves(&r, s, now, h); got != tt.want {
			t.Errorf("%s: serves = %v (%s), want %v", tt.name, got, why, tt.want)
		}
	}
}
