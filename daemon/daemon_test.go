package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sandboxdesk/ipc"
)

// TestServeAndWatchImages runs the controller as `serve` does, with the
// test backend, and checks that a client hears of a new image and that
// quit stops it.
func TestServeAndWatchImages(t *testing.T) {
	t.Setenv(BackendEnv, "testvm")
	root := t.TempDir()
	c, err := Open(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), c, nil) }()
	client := &ipc.SocketClient{Path: ipc.SocketPath(root)}
	var st ipc.Status
	for i := 0; i < 200 && client.Call(t.Context(), ipc.StatusRequest{}, &st) != nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if st.Root != root {
		t.Fatalf("status %+v", st)
	}
	events, err := client.Subscribe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(root, "images", "tiny")
	os.MkdirAll(img, 0o711)
	time.Sleep(50 * time.Millisecond) // let the watcher add the new folder
	os.WriteFile(filepath.Join(img, "current"), []byte("sha256:abc\n"), 0o644)
	timeout := time.After(20 * time.Second)
	for heard := false; !heard; {
		select {
		case e := <-events:
			heard = e.Kind == ipc.EventNotice && e.Message == "images changed"
		case <-timeout:
			t.Fatal("no word of the new image")
		}
	}
	if err := client.Call(t.Context(), ipc.QuitRequest{}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("quit did not stop the controller")
	}
	if _, err := os.Stat(ipc.SocketPath(root)); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
