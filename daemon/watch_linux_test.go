package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/wire"
)

// TestGuestImagesWatched: a guest image that appears (a pull's folder
// renamed into place, a build) is news for the clients.
func TestGuestImagesWatched(t *testing.T) {
	t.Setenv(BackendEnv, "testvm")
	guest := t.TempDir()
	t.Setenv(GuestDirEnv, guest)
	root := t.TempDir()
	c, err := Open(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, c, nil) }()
	defer func() { cancel(); <-done }()
	client := &wire.SocketClient{Path: wire.SocketPath(root)}
	for i := 0; i < 200 && client.Call(t.Context(), ipc.StatusRequest{}, nil) != nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	events, err := client.Subscribe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	stage := filepath.Join(guest, ".pull-amd64-tiny")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stage, "manifest.json"), []byte("{}"), 0o644)
	if err := os.Rename(stage, filepath.Join(guest, "amd64-tiny")); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for heard := false; !heard; {
		select {
		case e := <-events:
			heard = e.Kind == ipc.EventNotice && e.Message == "images changed"
		case <-timeout:
			t.Fatal("no word of the pulled guest image")
		}
	}
}
