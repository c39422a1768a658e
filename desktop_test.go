package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
)

// A relaunch while the previous instance still holds the root but no
// longer answers (it is stopping its sandboxes) waits for it, with a line
// saying so, then becomes the controller itself.
func TestRelaunchWaitsForTheInstanceThatIsQuitting(t *testing.T) {
	t.Setenv(daemon.BackendEnv, testvm.Name)
	root := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	previous, err := daemon.Open(t.Context(), root, log) // holds the root, serves nothing
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 10)
	type result struct {
		client ipc.Client
		served <-chan struct{}
		err    error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		c, s, err := connect(ctx, root, log, func(line string) { lines <- line })
		done <- result{c, s, err}
	}()
	if line := <-lines; !strings.Contains(line, "Waiting for the sandboxdesk that is quitting") {
		t.Fatalf("the window says %q", line)
	}
	previous.Close()
	r := <-done
	if r.err != nil || r.served == nil {
		t.Fatalf("after the previous instance stopped: %v, serving %v", r.err, r.served != nil)
	}
	if line := <-lines; line != "" {
		t.Errorf("the waiting line stays: %q", line)
	}
	var list []ipc.Sandbox
	if err := r.client.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Errorf("the new controller does not answer: %v", err)
	}
	cancel()
	<-r.served
}
