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

// socketPair is two ends of a local stream socket, as the agent and the
// CLI hold them.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
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
	return conn(fds[0]), conn(fds[1])
}

// TestSpliceOutputFromPipe: a command's output read from a pipe reaches
// the client through a socket (by splice) in frames of up to ChunkSize,
// every byte in order, and the exit status after them.
func TestSpliceOutputFromPipe(t *testing.T) {
	for _, size := range []int{0, 1, ChunkSize - 1, 3*ChunkSize + 17, 9 << 20} {
		agent, cli := socketPair(t)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*31 + i>>9)
		}
		go func() {
			pw.Write(data)
			pw.Close()
		}()
		in, _ := net.Pipe() // the client's frames: none come
		sess := Serve(in, agent)
		go func() {
			defer pr.Close()
			if _, err := io.Copy(sess.Stdout, pr); err != nil {
				t.Errorf("copy the output: %v", err)
			}
			sess.Exit(7)
		}()
		var got []byte
		buf := make([]byte, ChunkSize)
		for {
			typ, p, err := Read(cli, buf)
			if err != nil {
				t.Fatalf("%d bytes: read a frame: %v", size, err)
			}
			if typ == Exit {
				if code := int(int32(p[3])); code != 7 {
					t.Errorf("%d bytes: exit %d, want 7", size, code)
				}
				break
			}
			if typ != Stdout || len(p) == 0 || len(p) > ChunkSize {
				t.Fatalf("%d bytes: frame of type %d and %d bytes", size, typ, len(p))
			}
			got = append(got, p...)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%d bytes: %d came, not the same", size, len(got))
		}
	}
}

// TestSpliceFallsBackWithoutSocket: a pipe copied into a writer that is
// not a socket goes the usual way, every byte in order.
func TestSpliceFallsBackWithoutSocket(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("abcdefg"), 100000)
	go func() {
		pw.Write(data)
		pw.Close()
	}()
	var out bytes.Buffer
	w := &Writer{Mu: new(sync.Mutex), W: &out, Typ: Stderr}
	if _, err := io.Copy(w, pr); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		typ, p, err := Read(&out, nil)
		if err == io.EOF {
			break
		}
		if err != nil || typ != Stderr {
			t.Fatalf("frame: %v, type %d", err, typ)
		}
		got = append(got, p...)
	}
	if !bytes.Equal(got, data) {
		t.Error("the bytes through the frames differ")
	}
}

// TestSpliceInputFromPipe: a client's input read from a pipe reaches the
// command through a socket (by splice), within the server's credit, every
// byte in order, more of it than one window.
func TestSpliceInputFromPipe(t *testing.T) {
	for _, c := range []struct {
		size     int
		blocking bool // a standard input inherited in blocking mode
	}{{1, false}, {3*Window + 5, false}, {3*Window + 5, true}} {
		size := c.size
		cli, agent := socketPair(t)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if c.blocking {
			var fds [2]int
			if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			pw.Close()
			pr, pw = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "feed")
		}
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>11)
		}
		go func() {
			pw.Write(data)
			pw.Close()
		}()
		sess := Serve(agent, agent)
		got := make(chan []byte, 1)
		go func() {
			b, err := io.ReadAll(sess.Stdin())
			if err != nil {
				t.Errorf("%d bytes: read the input: %v", size, err)
			}
			got <- b
			sess.Exit(0)
		}()
		code, err := Attach(t.Context(), cli, nil, IO{Stdin: pr})
		if err != nil || code != 0 {
			t.Fatalf("%d bytes: exit %d, %v", size, code, err)
		}
		if b := <-got; !bytes.Equal(b, data) {
			t.Errorf("%d bytes: %d came, not the same", size, len(b))
		}
		pr.Close()
	}
}
