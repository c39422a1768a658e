//go:build linux

package qemu

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
)

// TestHostileBroadcastToLoopback: QEMU's user network hands a guest's UDP
// to 255.255.255.255 or 10.0.2.255 to the host's 127.0.0.1, past the
// guest's routes. A command, as the guest's user, cannot set
// SO_BROADCAST (the call does nothing), so its sends fail and nothing
// arrives there; ordinary UDP, from Go's net package which sets
// SO_BROADCAST on every UDP socket, still works.
func TestHostileBroadcastToLoopback(t *testing.T) {
	b := newBackend(t, t.TempDir())
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: cannot build the probe")
	}
	ws := t.TempDir()
	build := exec.Command(gobin, "build", "-o", filepath.Join(ws, "broadcast"), "./testdata/broadcast")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the probe: %v: %s", err, out)
	}
	l, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	ctx := context.Background()
	spec := backends.Spec{ID: "bc", Name: "broadcast", Image: backends.Image{Name: "tiny"}, Workspace: ws, Network: backends.NetworkOn, MemoryMiB: 256}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	defer b.Remove(ctx, "bc")
	code, out := run(t, b, "bc", backends.ExecRequest{Args: []string{"/workspace/broadcast", fmt.Sprint(l.LocalAddr().(*net.UDPAddr).Port)}})
	t.Logf("probe (exit %d):\n%s", code, out)

	// QEMU forwards at once; the bound only ends the read
	l.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 64)
	if n, from, err := l.ReadFromUDP(buf); err == nil {
		t.Errorf("the host's loopback received %q from %v", buf[:n], from)
	}
	for _, want := range []string{
		"SO_BROADCAST reads 0 255.255.255.255: <nil>",
		"sendto 255.255.255.255: permission denied",
		"SO_BROADCAST reads 0 10.0.2.255: <nil>",
		"sendto 10.0.2.255: permission denied",
		"raw socket: operation not permitted",
		"packet socket: operation not permitted",
		"ordinary udp: <nil>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the probe did not say %q", want)
		}
	}
	if code != 0 {
		t.Errorf("the probe exited %d", code)
	}
}
