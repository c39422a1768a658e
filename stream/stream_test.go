package stream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	for _, p := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("y"), MaxFrame)} {
		if err := Write(&buf, Stdout, p); err != nil {
			t.Fatal(err)
		}
		typ, got, err := Read(&buf, nil)
		if err != nil || typ != Stdout || !bytes.Equal(got, p) {
			t.Fatalf("round trip of %d bytes: %v", len(p), err)
		}
	}
	// a length over the limit is a broken peer, not an allocation
	buf.Write([]byte{Stdout, 0xff, 0xff, 0xff, 0xff})
	if _, _, err := Read(&buf, nil); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("oversized frame: %v", err)
	}
	buf.Reset()
	buf.Write([]byte{Stdout, 0, 0, 0, 9, 'a'})
	if _, _, err := Read(&buf, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short frame: %v", err)
	}
}

func TestAttachAndServe(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		s := Serve(server, server)
		in := s.IO()
		// input first: the session's reader waits while input is unread
		data, _ := io.ReadAll(in.Stdin)
		sig := <-in.Signals
		size := <-in.Resizes
		io.WriteString(in.Stdout, string(data)+" "+sig.String())
		io.WriteString(in.Stderr, "rows "+string(rune('0'+size.Rows)))
		s.Exit(3)
	}()
	sigs := make(chan syscall.Signal, 1)
	sigs <- syscall.SIGINT
	resizes := make(chan Size, 1)
	resizes <- Size{Rows: 5, Cols: 80}
	var out, errb bytes.Buffer
	code, err := Attach(context.Background(), client, nil, IO{Stdin: strings.NewReader("hi"), Stdout: &out, Stderr: &errb, Signals: sigs, Resizes: resizes})
	if err != nil || code != 3 || out.String() != "hi interrupt" || errb.String() != "rows 5" {
		t.Errorf("attach: %d, %v, %q, %q", code, err, out.String(), errb.String())
	}
}

func TestRefusalCarriesItsKind(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		s := Serve(server, server)
		s.Refuse("invalid", `no folder "/nope" in sandbox box`)
		server.Close()
	}()
	_, err := Attach(context.Background(), client, nil, IO{})
	var se *StartError
	if !errors.As(err, &se) || se.Kind != "invalid" || se.Message != `no folder "/nope" in sandbox box` {
		t.Errorf("refusal arrived as %#v", err)
	}
}
