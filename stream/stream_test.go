package stream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
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

// endless is input that never ends; reached is closed once it has given
// after bytes.
type endless struct {
	given, after int
	reached      chan struct{}
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	if e.given < e.after && e.given+len(p) >= e.after && e.reached != nil {
		close(e.reached)
	}
	e.given += len(p)
	return len(p), nil
}

// TestSignalsPassInputNobodyReads: `yes | sandboxdesk exec box -- sleep
// 1000`, then Ctrl-C. The command never reads its input; the signal must
// still get through rather than queue behind it.
func TestSignalsPassInputNobodyReads(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		s := Serve(server, server)
		sig := <-s.Signals() // and never a read of stdin
		s.Exit(128 + int(sig))
	}()
	in := &endless{after: Window / 2, reached: make(chan struct{})}
	sigs := make(chan syscall.Signal, 1)
	go func() { <-in.reached; sigs <- syscall.SIGINT }()
	done := make(chan int, 1)
	go func() {
		code, _ := Attach(context.Background(), client, nil, IO{Stdin: in, Signals: sigs})
		done <- code
	}()
	select {
	case code := <-done:
		if code != 130 {
			t.Errorf("exit status %d, want 130 (SIGINT)", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the signal is still queued behind input nobody reads after 20 s")
	}
}

// TestInputArrivesWhole: input larger than the window reaches a command
// that reads it, unchanged and in order.
func TestInputArrivesWhole(t *testing.T) {
	client, server := net.Pipe()
	want := bytes.Repeat([]byte("0123456789abcdef"), 3*Window/16+7)
	go func() {
		s := Serve(server, server)
		got, _ := io.ReadAll(s.Stdin())
		code := 0
		if !bytes.Equal(got, want) {
			code = 1
		}
		s.Exit(code)
	}()
	if code, err := Attach(context.Background(), client, nil, IO{Stdin: bytes.NewReader(want)}); code != 0 || err != nil {
		t.Errorf("%d bytes through the window: %d, %v", len(want), code, err)
	}
}

// TestInputWaitsForCredit: a client sends no more input than the server
// granted. The server here grants one window, takes exactly that much and
// ends the command; the next frame the client sends must be the end of
// its input, not more input past the grant.
func TestInputWaitsForCredit(t *testing.T) {
	client, server := net.Pipe()
	result := make(chan string, 1)
	go func() {
		defer server.Close()
		var got int
		granted := false
		for got < Window {
			typ, p, err := Read(server, nil)
			if err != nil || typ != Stdin {
				result <- fmt.Sprintf("frame %d, %v, after %d bytes of input", typ, err, got)
				return
			}
			got += len(p)
			if !granted {
				granted = true
				Write(server, Credit, creditPayload(Window))
			}
		}
		Write(server, Exit, ExitPayload(0))
		typ, p, err := Read(server, nil)
		if err != nil || typ != StdinClose {
			result <- fmt.Sprintf("after the granted %d bytes and the exit: frame %d of %d bytes, %v; want the end of input", Window, typ, len(p), err)
			return
		}
		result <- ""
	}()
	in := &endless{after: -1}
	if code, err := Attach(context.Background(), client, nil, IO{Stdin: in}); code != 0 || err != nil {
		t.Errorf("attach: %d, %v", code, err)
	}
	if msg := <-result; msg != "" {
		t.Error(msg)
	}
}

// TestNoInputIsSaidWithTheRequest: Exec without input sends the request
// and the end of input in one write, so the server knows before it starts
// the command that no input will come.
func TestNoInputIsSaidWithTheRequest(t *testing.T) {
	client, server := net.Pipe()
	done := make(chan bool, 1)
	go func() {
		br := bufio.NewReader(server)
		if line, err := br.ReadBytes('\n'); err != nil || string(line) != "{\"args\":[\"true\"]}\n" {
			t.Errorf("request line %q, %v", line, err)
		}
		s := Serve(br, server)
		done <- s.NoInput()
		s.Exit(0)
	}()
	if code, err := Exec(context.Background(), client, []byte("{\"args\":[\"true\"]}\n"), IO{}); code != 0 || err != nil {
		t.Errorf("exec: %d, %v", code, err)
	}
	if !<-done {
		t.Error("the server started the command not knowing its input was over")
	}
}
