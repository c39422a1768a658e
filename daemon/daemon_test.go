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
	client := &wire.SocketClient{Path: wire.SocketPath(root)}
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
	if _, err := os.Stat(wire.SocketPath(root)); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

// TestServeRestores: sandboxes running when serve quits run again when it
// starts next, and one its user stopped does not.
func TestServeRestores(t *testing.T) {
	two := 2
	t.Setenv(BackendEnv, "testvm")
	root := t.TempDir()
	serve := func() (*wire.SocketClient, chan error) {
		c, err := Open(t.Context(), root, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- Serve(context.Background(), c, nil) }()
		client := &wire.SocketClient{Path: wire.SocketPath(root)}
		for i := 0; i < 500 && client.Call(t.Context(), ipc.StatusRequest{}, nil) != nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		return client, done
	}
	quit := func(client *wire.SocketClient, done chan error) {
		if err := client.Call(t.Context(), ipc.QuitRequest{}, nil); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("serve ended with %v", err)
		}
	}
	client, done := serve()
	// two at once fit any host (the recommendation is at least one; set
	// two so none queues)
	if err := client.Call(t.Context(), ipc.SetLimitsRequest{AtOnce: &two}, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"quiet", "a", "b"} {
		if err := client.Call(t.Context(), ipc.CreateRequest{Name: n}, nil); err != nil {
			t.Fatal(err)
		}
		if n == "quiet" {
			if err := client.Call(t.Context(), ipc.StopRequest{Ref: ipc.Ref{Name: "quiet"}}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	quit(client, done)

	client, done = serve()
	defer quit(client, done)
	want := map[string]ipc.State{"a": ipc.StateRunning, "b": ipc.StateRunning, "quiet": ipc.StateStopped}
	var got map[string]ipc.State
	for i := 0; i < 1000; i++ { // the restore runs beside the socket
		var list []ipc.Sandbox
		if err := client.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
			t.Fatal(err)
		}
		got = map[string]ipc.State{}
		for _, sb := range list {
			got[sb.Name] = sb.State
		}
		if got["a"] == want["a"] && got["b"] == want["b"] {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("after restarting serve: %v, want %v", got, want)
			break
		}
	}
}
