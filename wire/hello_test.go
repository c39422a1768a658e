package wire

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"sandboxdesk/ipc"
)

// TestHelloThenUnknownRequest is the handshake as a client newer than the
// controller meets it: hello says what is offered, and a request the
// controller does not know gets a typed error on the same connection,
// which then goes on answering, instead of a hang or a hang-up.
func TestHelloThenUnknownRequest(t *testing.T) {
	c, h := serve(t)
	conn, err := dialLocal(t.Context(), c.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	roundTrip := func(line string) replyLine {
		t.Helper()
		fmt.Fprintln(conn, line)
		b, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: no reply: %v", line, err)
		}
		var rep replyLine
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%s: reply %q: %v", line, b, err)
		}
		return rep
	}
	rep := roundTrip(`{"type":"hello","body":{"client":"test"}}`)
	var hello ipc.Hello
	if !rep.OK || json.Unmarshal(rep.Body, &hello) != nil {
		t.Fatalf("hello: %+v", rep)
	}
	if hello.Protocol != ipc.ProtocolVersion || !slices.Contains(hello.Requests, "create") || !slices.Contains(hello.Requests, "hello") || !slices.Contains(hello.Features, "exec.signal") {
		t.Errorf("hello = %+v", hello)
	}
	for _, unknown := range []string{`{"type":"teleport","body":{"to":"mars"}}`, `{"type":"Hello"}`, `{"type":""}`} {
		rep = roundTrip(unknown)
		if rep.OK || rep.Error == nil || rep.Error.Kind != "invalid" {
			t.Errorf("%s: reply %+v, want an invalid-kind error", unknown, rep)
		}
	}
	if rep := roundTrip(`{"type":"list"}`); !rep.OK {
		t.Errorf("the connection stopped answering after an unknown request: %+v", rep)
	}
	if h.calls.Load() != 1 {
		t.Errorf("the controller saw %d requests; hello and unknown ones are not its to answer", h.calls.Load())
	}
}

func TestHelloInProcess(t *testing.T) {
	l := NewLocal(t.Context(), &echoHandler{})
	var hello ipc.Hello
	if err := l.Call(t.Context(), ipc.HelloRequest{}, &hello); err != nil || hello.Protocol != ipc.ProtocolVersion {
		t.Errorf("local hello: %+v, %v", hello, err)
	}
}

// replyLine is a reply line as any client reads it off the connection.
type replyLine struct {
	OK    bool            `json:"ok"`
	Body  json.RawMessage `json:"body"`
	Error *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
}
