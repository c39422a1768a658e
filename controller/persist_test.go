package controller

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

const childEnv = "SANDBOXDESK_TEST_CHILD"

// TestMain lets a test run this binary again as a separate controller
// process: a restart or a second owner is then a real other process.
func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role, os.Getenv("SANDBOXDESK_TEST_ROOT")))
	}
	os.Exit(m.Run())
}

func openChild(root string) (*Controller, error) {
	vm, err := testvm.New(filepath.Join(root, "testvm"), testvm.Config{})
	if err != nil {
		return nil, err
	}
	return Open(context.Background(), Options{
		Root: root, Backends: map[string]Backend{testvm.Name: vm}, DefaultBackend: testvm.Name,
		Measure: func(context.Context) (host.Info, error) {
			return host.Info{CPUCount: 4, EffectiveCPUCores: 4, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 100 << 30}, nil
		},
	})
}

func runChild(role, root string) int {
	ctx := context.Background()
	c, err := openChild(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	switch role {
	case "populate":
		for _, n := range []string{"a", "b"} {
			if _, err := c.Create(ctx, ipc.CreateRequest{Name: n, MemoryMiB: mib(2048)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		os.WriteFile(filepath.Join(c.workspace("a"), "work.txt"), []byte("precious"), 0o600)
		c.Stop(ctx, ipc.Ref{Name: "b"})
		list, _ := c.List(ctx, "")
		json.NewEncoder(os.Stdout).Encode(list)
		// no Close, no Shutdown: the process dies with "a" running, as a
		// crashed or killed controller would
		return 0
	case "hold":
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
		c.Close()
		return 0
	}
	return 2
}

func child(t *testing.T, role, root string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, "SANDBOXDESK_TEST_ROOT="+root)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestRestartKeepsEverything(t *testing.T) {
	root := t.TempDir()
	out, err := child(t, "populate", root).Output()
	if err != nil {
		t.Fatalf("child controller: %v", err)
	}
	var before []ipc.Sandbox
	if err := json.Unmarshal(out, &before); err != nil || len(before) != 2 {
		t.Fatalf("child list %q: %v", out, err)
	}
	c, err := openChild(root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	after, _ := c.List(t.Context(), "")
	if len(after) != len(before) {
		t.Fatalf("after restart %d sandboxes, before %d", len(after), len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if a.Name != b.Name || a.ID != b.ID || !a.CreatedAt.Equal(b.CreatedAt) || a.Workspace != b.Workspace || a.MemoryMiB != b.MemoryMiB {
			t.Errorf("sandbox %d changed across restart:\nbefore %+v\nafter  %+v", i, b, a)
		}
	}
	if after[0].State != ipc.StateRunning || after[0].ReservedMiB != 2048 {
		t.Errorf("a was running when its controller died and its VM still runs: %s, %d MiB reserved; want adopted", after[0].State, after[0].ReservedMiB)
	}
	if after[1].State != ipc.StateStopped {
		t.Errorf("b was stopped: now %s", after[1].State)
	}
	if b, err := os.ReadFile(filepath.Join(after[0].Workspace, "work.txt")); err != nil || string(b) != "precious" {
		t.Errorf("workspace file after restart: %q, %v", b, err)
	}
}

func TestSecondControllerNamesTheHolder(t *testing.T) {
	root := t.TempDir()
	cmd := child(t, "hold", root)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("child said %q", line)
	}
	_, err := openChild(root)
	if err == nil {
		t.Fatal("a second controller opened a held root")
	}
	if want := "sandboxdesk pid " + strconv.Itoa(cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
}

func TestReconcile(t *testing.T) {
	e := newEnv(t)
	e.create(ipc.CreateRequest{Name: "alive"})
	dead := e.create(ipc.CreateRequest{Name: "dead"})
	e.c.Close()

	// the "VM" of dead died while no controller watched; a stranger's VM
	// that this root never made appeared
	vm, _ := testvm.New(filepath.Join(e.root, "testvm"), testvm.Config{})
	vm.Stop(t.Context(), dead.ID, 0)
	vm.Start(t.Context(), withMemory(specOf("sb-stranger"), 1024))

	c, err := Open(t.Context(), Options{Root: e.root, Backends: map[string]Backend{testvm.Name: vm}, DefaultBackend: testvm.Name,
		Measure: func(context.Context) (host.Info, error) { return e.host, nil }, Clock: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.c = c
	list, _ := c.List(t.Context(), "")
	states := map[string]ipc.State{}
	for _, sb := range list {
		states[sb.Name] = sb.State
	}
	if states["alive"] != ipc.StateRunning || states["dead"] != ipc.StateStopped || len(list) != 2 {
		t.Errorf("after reconcile: %v, want alive running, dead stopped, nothing else", states)
	}
	if vm.Reserved("sb-stranger") != 1024 {
		t.Error("reconcile touched a VM it does not own")
	}
	if !e.workspaceExists("dead") {
		t.Error("reconcile deleted the workspace of a dead sandbox")
	}
}

func TestPrefixesAreSeparateFleets(t *testing.T) {
	e := newEnv(t)
	if _, err := e.c.SetLimits(t.Context(), intp(10), nil); err != nil {
		t.Fatal(err)
	}
	ci := e.create(ipc.CreateRequest{Prefix: "ci", Name: "w"})
	dev := e.create(ipc.CreateRequest{Prefix: "dev", Name: "w"})
	plain := e.create(ipc.CreateRequest{Name: "w"})
	if ci.ID == dev.ID || dev.ID == plain.ID {
		t.Fatal("fleets share a sandbox")
	}
	for prefix, want := range map[string]string{"ci": ci.ID, "dev": dev.ID, "": plain.ID} {
		list, _ := e.c.List(t.Context(), prefix)
		if len(list) != 1 || list[0].ID != want {
			t.Errorf("list %q: %+v, want only %s", prefix, list, want)
		}
	}
	if names, err := e.c.RemoveAll(t.Context(), "ci"); err != nil || len(names) != 1 || names[0] != "w" {
		t.Fatalf("removeAll ci: %v, %v", names, err)
	}
	if removed, _ := e.c.Remove(t.Context(), ipc.Ref{Prefix: "ci", Name: "w"}); removed {
		t.Error("removed ci-w twice")
	}
	for _, prefix := range []string{"dev", ""} {
		if list, _ := e.c.List(t.Context(), prefix); len(list) != 1 {
			t.Errorf("removeAll ci touched fleet %q: %+v", prefix, list)
		}
	}
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Prefix: "dev", Name: "nothere"}); err == nil {
		t.Error("stop of a missing sandbox succeeded")
	}
	if _, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "dev-w"}); err == nil {
		t.Error("a plain sandbox took the name of dev's w")
	}
}

func specOf(id string) (s backendsSpec) {
	s.ID, s.Name = id, id
	return s
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	root := t.TempDir()
	s, err := openStore(t.Context(), filepath.Join(root, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec("PRAGMA user_version = 99")
	s.close()
	_, err = openStore(t.Context(), filepath.Join(root, "state.db"))
	if err == nil || !strings.Contains(err.Error(), "newer sandboxdesk") {
		t.Errorf("opening a schema-99 database: %v", err)
	}
}
