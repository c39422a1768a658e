package stream

import (
	"bytes"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
)

// TestFrameIsOneWrite: on a socket, a frame's header and payload leave in
// one write; a packet socket keeps each write apart, so a second write
// would show as a read of the header alone.
func TestFrameIsOneWrite(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET, 0)
	if err != nil {
		t.Skip("no packet sockets here:", err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "pair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := conn(fds[0]), conn(fds[1])
	payload := bytes.Repeat([]byte("x"), 1000)
	if err := Write(a, Stdout, payload); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := b.Read(buf)
	if err != nil || n != 5+len(payload) {
		t.Fatalf("first read of a frame: %d bytes, %v; want the whole frame, %d bytes", n, err, 5+len(payload))
	}
}

// TestCopyMakesLargeFrames: io.Copy into a Writer sends frames of
// ChunkSize, not io.Copy's 32 KiB, and every byte arrives in order.
func TestCopyMakesLargeFrames(t *testing.T) {
	data := make([]byte, 4*ChunkSize+5)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var out bytes.Buffer
	w := &Writer{Mu: &sync.Mutex{}, W: &out, Typ: Stdin}
	if _, err := io.Copy(w, struct{ io.Reader }{bytes.NewReader(data)}); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var got []byte
	buf := make([]byte, ChunkSize)
	for {
		typ, p, err := Read(&out, buf)
		if err == io.EOF {
			break
		}
		if err != nil || typ != Stdin {
			t.Fatalf("frame: %v, type %d", err, typ)
		}
		sizes = append(sizes, len(p))
		got = append(got, p...)
	}
	want := []int{ChunkSize, ChunkSize, ChunkSize, ChunkSize, 5}
	if len(sizes) != len(want) || sizes[0] != ChunkSize || sizes[4] != 5 {
		t.Errorf("frame sizes %v, want %v", sizes, want)
	}
	if !bytes.Equal(got, data) {
		t.Error("the bytes through the frames differ")
	}
}
