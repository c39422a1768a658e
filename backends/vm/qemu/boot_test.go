//go:build linux

package qemu

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
	"sandboxdesk/stream"
)

// newBackend returns a VM backend over a fresh folder and the built image.
func newBackend(t testing.TB, dir string) *vm.Backend {
	t.Helper()
	d, err := Find()
	if err != nil {
		t.Skip(err)
	}
	b, err := vm.New(vm.Config{Dir: dir, Images: testImages(t), Driver: d})
	if err != nil {
		t.Fatal(err)
	}
	b.SetNotify(func(_ context.Context, e backends.Event) { t.Logf("%s: %s", e.ID, e.Message) })
	return b
}

func run(t *testing.T, b *vm.Backend, id string, req backends.ExecRequest) (int, string) {
	t.Helper()
	var out bytes.Buffer
	if req.Stdout == nil {
		req.Stdout = &out
	}
	if req.Stderr == nil {
		req.Stderr = &out
	}
	code, err := b.Exec(context.Background(), id, req)
	if err != nil {
		t.Fatalf("%v: %v", req.Args, err)
	}
	return code, out.String()
}

func TestBootTinyGuest(t *testing.T) {
	dir := t.TempDir()
	b := newBackend(t, dir)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "from-host.txt"), []byte("written on the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a listener on the host's loopback the guest must never reach
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port

	ctx := context.Background()
	spec := backends.Spec{ID: "vm1", Name: "boot-test", Image: backends.Image{Name: "tiny"}, Workspace: ws, Network: backends.NetworkOn, MemoryMiB: 512}
	started, err := b.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove(ctx, "vm1")
	if started.ReservedMiB != 512 {
		t.Errorf("reserved %d MiB, booted with 512", started.ReservedMiB)
	}
	if got, err := b.MemoryMiB(ctx, "vm1"); err != nil || got != started.ReservedMiB {
		t.Errorf("QMP reads back %d MiB (%v), reserved %d", got, err, started.ReservedMiB)
	}

	tests := []struct {
		args  []string
		stdin string
		code  int
		out   string
	}{
		{[]string{"echo", "hello"}, "", 0, "hello\n"},
		{[]string{"sh", "-c", "exit 7"}, "", 7, ""},
		{[]string{"cat"}, "through stdin", 0, "through stdin"},
		{[]string{"id", "-u"}, "", 0, "1000\n"},
		{[]string{"hostname"}, "", 0, "boot-test\n"},
		{[]string{"pwd"}, "", 0, "/workspace\n"},
		{[]string{"cat", "/workspace/from-host.txt"}, "", 0, "written on the host\n"},
		{[]string{"/no/such/program"}, "", 127, "sandboxdesk: "},
	}
	for _, tt := range tests {
		code, out := run(t, b, "vm1", backends.ExecRequest{Args: tt.args, Stdin: strings.NewReader(tt.stdin)})
		if code != tt.code || !strings.HasPrefix(out, tt.out) || (tt.out == "" && out != "") {
			t.Errorf("%v: exit %d, output %q; want %d, %q", tt.args, code, out, tt.code, tt.out)
		}
	}

	t.Run("10 MiB of output", func(t *testing.T) {
		h := sha256.New()
		code, _ := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sh", "-c", "head -c 10485760 /dev/zero | tr '\\0' v"}, Stdout: h})
		want := sha256.Sum256(bytes.Repeat([]byte("v"), 10<<20))
		if code != 0 || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Errorf("exit %d; 10 MiB of output arrived changed", code)
		}
	})
	t.Run("pty shell", func(t *testing.T) {
		code, out := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sh"}, TTY: &stream.Size{Rows: 40, Cols: 100},
			Stdin: strings.NewReader("tty; stty size; exit 3\n")})
		if code != 3 || !strings.Contains(out, "/dev/pts/") || !strings.Contains(out, "40 100") {
			t.Errorf("shell on a terminal: exit %d, %q", code, out)
		}
	})
	t.Run("signal", func(t *testing.T) {
		sigs := make(chan syscall.Signal, 1)
		sigs <- syscall.SIGINT
		code, _ := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sleep", "600"}, Signals: sigs})
		if code != 128+int(syscall.SIGINT) {
			t.Errorf("sleep after SIGINT: exit %d", code)
		}
	})
	t.Run("files the guest makes are the host user's", func(t *testing.T) {
		code, out := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sh", "-c", "echo from the guest > /workspace/from-guest.txt && mkdir /workspace/d && ln -s /etc/shadow /workspace/link"}})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		data, err := os.ReadFile(filepath.Join(ws, "from-guest.txt"))
		if err != nil || string(data) != "from the guest\n" {
			t.Errorf("host reads %q, %v", data, err)
		}
		for _, name := range []string{"from-guest.txt", "d", "link"} {
			fi, err := os.Lstat(filepath.Join(ws, name))
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Getuid() {
				t.Errorf("%s: owned by uid %d on the host, want the controller's %d", name, st.Uid, os.Getuid())
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf("%s: the guest made a link on the host", name)
			}
		}
	})
	t.Run("never the host's loopback", func(t *testing.T) {
		code, out := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sh", "-c", fmt.Sprintf("nc -w 3 10.0.2.2 %d </dev/null", port)}})
		select {
		case <-reached:
			t.Errorf("the guest reached the host's loopback (nc exit %d: %s)", code, out)
		default:
		}
		if code == 0 {
			t.Errorf("nc to the gateway's address succeeded: %s", out)
		}
	})
	t.Run("adopted by a controller that restarts", func(t *testing.T) {
		b.Close() // as a controller that dies leaves its machines
		b2 := newBackend(t, dir)
		obs, err := b2.Observe(ctx)
		// what it holds and how it runs, heard again from the machine's folder
		want := backends.Observed{ID: "vm1", Running: true, ReservedMiB: 512, Accel: started.Accel}
		if err != nil || len(obs) != 1 || obs[0] != want || want.Accel == "" {
			t.Fatalf("observed %+v, %v", obs, err)
		}
		if code, out := run(t, b2, "vm1", backends.ExecRequest{Args: []string{"cat", "/workspace/from-guest.txt"}}); code != 0 || out != "from the guest\n" {
			t.Errorf("exec in the adopted VM: exit %d, %q", code, out)
		}
		b = b2
	})

	// a command still in /workspace keeps the share mounted, so the stop
	// is cold: the guest ends it within the grace and powers off
	if code, out := run(t, b, "vm1", backends.ExecRequest{Args: []string{"sh", "-c", "sleep 1000 >/dev/null 2>&1 &"}}); code != 0 {
		t.Fatalf("background sleep: %d %s", code, out)
	}
	if st, err := b.Stop(ctx, "vm1", 10*time.Second); err != nil || st.Checkpointed {
		t.Fatalf("stop: %+v, %v", st, err)
	}
	console, _ := os.ReadFile(filepath.Join(dir, "vm1", vm.ConsoleLog))
	if !bytes.Contains(console, []byte("reboot: Power down")) {
		t.Errorf("the guest did not power itself off; console ends %q", tail(filepath.Join(dir, "vm1", vm.ConsoleLog)))
	}
	if obs, _ := b.Observe(ctx); len(obs) != 1 || obs[0].Running {
		t.Errorf("after stop: %+v", obs)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "from-guest.txt")); err != nil || len(data) == 0 {
		t.Errorf("the workspace after stop: %q, %v", data, err)
	}
	if err := b.Remove(ctx, "vm1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "vm1")); !os.IsNotExist(err) {
		t.Errorf("the sandbox's folder is still there after remove: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "from-host.txt")); err != nil {
		t.Errorf("remove touched the workspace: %v", err)
	}
}
