package cli

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"sandboxdesk/stream"
)

// TestExecGrowsItsPipes: an exec whose output (or input) is a pipe grows
// it to hold a whole frame, so output arrives in a quarter of the
// wakeups the kernel's default 64 KiB would take.
func TestExecGrowsItsPipes(t *testing.T) {
	root := serveRoot(t, "testvm")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	go io.Copy(io.Discard, outR)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	inW.Close()
	var errb syncBuffer
	if code := Run(t.Context(), []string{"--root", root, "exec", "box", "--", "true"}, IO{In: inR, Out: outW, Err: &errb}); code != 0 {
		t.Fatalf("exec: %d %s", code, errb.String())
	}
	for name, f := range map[string]*os.File{"output": outW, "input": inR} {
		if n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || n < stream.ChunkSize {
			t.Errorf("the %s pipe holds %d bytes (%v), want at least %d", name, n, err, stream.ChunkSize)
		}
	}
}
