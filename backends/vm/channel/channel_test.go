//go:build unix

package channel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"sandboxdesk/backends/agent"
	"sandboxdesk/stream"
)

// pair serves an agent behind the guest's end of a pipe and returns the
// host's dialer, as a virtio-serial port would connect them.
func pair(t *testing.T) agent.Dialer {
	t.Helper()
	host, guest := net.Pipe()
	l, err := Listen(guest)
	if err != nil {
		t.Fatal(err)
	}
	go (&agent.Server{Env: os.Environ()}).Serve(l)
	c, err := NewClient(host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); l.Close() })
	return c.Dial
}

func TestConcurrentCommandsOverOneStream(t *testing.T) {
	dial := pair(t)
	var wg sync.WaitGroup
	tests := []struct {
		args   []string
		stdin  string
		code   int
		stdout string
	}{
		{[]string{"sh", "-c", "echo hello"}, "", 0, "hello\n"},
		{[]string{"sh", "-c", "exit 7"}, "", 7, ""},
		{[]string{"cat"}, "over the channel", 0, "over the channel"},
		{[]string{"sh", "-c", "sleep 0.3; echo late"}, "", 0, "late\n"},
	}
	for _, tt := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			code, err := agent.Exec(context.Background(), dial, agent.Request{Args: tt.args}, stream.IO{Stdin: strings.NewReader(tt.stdin), Stdout: &out})
			if err != nil || code != tt.code || out.String() != tt.stdout {
				t.Errorf("%v: code %d, err %v, stdout %q", tt.args, code, err, out.String())
			}
		}()
	}
	wg.Wait()
}

func TestLargeOutputIntactOverTheChannel(t *testing.T) {
	dial := pair(t)
	h := sha256.New()
	code, err := agent.Exec(context.Background(), dial, agent.Request{Args: []string{"sh", "-c", "head -c 10485760 /dev/zero | tr '\\0' y"}}, stream.IO{Stdout: h})
	if err != nil || code != 0 {
		t.Fatal(code, err)
	}
	want := sha256.Sum256(bytes.Repeat([]byte("y"), 10<<20))
	if !bytes.Equal(h.Sum(nil), want[:]) {
		t.Error("10 MiB of output arrived changed")
	}
}

// TestHostileChannelGuestFrames: guest root can kill our agent and speak yamux
// on the port itself. A flood of pings (each answered by a goroutine of
// the host's that waits while the guest reads nothing) or of streams the
// guest opens must end the channel, not grow the controller.
func TestHostileChannelGuestFrames(t *testing.T) {
	frame := func(typ byte, flags uint16, stream uint32) []byte {
		h := make([]byte, 12)
		h[1] = typ
		binary.BigEndian.PutUint16(h[2:], flags)
		binary.BigEndian.PutUint32(h[4:], stream)
		return h
	}
	tests := []struct {
		name  string
		frame []byte
	}{
		{"ping flood", frame(2, 1, 0)},
		{"streams the guest opens", frame(1, 1, 2)},
		{"data on a stream the guest opens", frame(0, 1, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, guest := net.Pipe()
			before := runtime.NumGoroutine()
			c, err := NewClient(host)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// the guest writes and never reads what the host answers
			const n = 5000
			sent := 0
			for range n {
				if _, err := guest.Write(tt.frame); err != nil {
					break
				}
				sent++
			}
			if !c.Closed() {
				t.Error("the channel still runs after the guest broke its protocol")
			}
			if sent == n {
				t.Errorf("the host read all %d frames the agent never sends", n)
			}
			if grown := runtime.NumGoroutine() - before; grown > 100 {
				t.Errorf("the host holds %d more goroutines after %d frames", grown, sent)
			}
			guest.Close()
		})
	}
}
