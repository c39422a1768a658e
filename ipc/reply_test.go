package ipc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestReplyLineAsBefore: the body spliced into the reply line gives the
// very bytes the reply struct would, for what the controller sends.
func TestReplyLineAsBefore(t *testing.T) {
	list := make([]Sandbox, 1000)
	for i := range list {
		list[i] = Sandbox{Name: "w<&>\u2028", ID: "sb-1", State: StateRunning, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), MemoryMiB: 2048}
	}
	for _, body := range []any{Empty{}, list, []Sandbox{}, map[string]string{"a": "b"}} {
		var got bytes.Buffer
		if err := writeReply(&got, body, nil); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(body)
		want, _ := json.Marshal(reply{OK: true, Body: b})
		if got.String() != string(want)+"\n" {
			t.Errorf("reply line %.80q, want %.80q", got.String(), want)
		}
		var rep reply
		if err := json.Unmarshal(got.Bytes(), &rep); err != nil || !rep.OK {
			t.Errorf("reply line does not decode: %v", err)
		}
	}
	var got bytes.Buffer
	writeReply(&got, nil, Errorf(ErrNotFound, "no sandbox named w"))
	if got.String() != `{"ok":false,"error":{"kind":"notFound","message":"no sandbox named w"}}`+"\n" {
		t.Errorf("error line %q", got.String())
	}
	got.Reset()
	writeReply(&got, func() {}, nil)
	if !bytes.Contains(got.Bytes(), []byte(`"message":"encode reply: json: unsupported type: func()"`)) {
		t.Errorf("unencodable body: %q", got.String())
	}
}

// TestReplyBodyReadInPlace: what the client reads from a reply line, by
// the one-pass path for the lines the controller writes and by the whole
// reply for others, is the body that was sent.
func TestReplyBodyReadInPlace(t *testing.T) {
	list := []Sandbox{{Name: "w", ID: "sb-1", State: StateRunning, MemoryMiB: 2048}, {Name: "x}", ID: "sb-2"}}
	var written bytes.Buffer
	writeReply(&written, list, nil)
	for _, tc := range []struct{ name, line string }{
		{"as the controller writes it", written.String()},
		{"with a field after the body", `{"ok":true,"body":[{"name":"w","id":"sb-1","state":"running","memoryMiB":2048},{"name":"x}","id":"sb-2"}],"note":"}"}` + "\n"},
		{"with the body last but spaced", `{"ok": true, "body": [{"name":"w"}]}` + "\n"},
	} {
		var got []Sandbox
		if err := readReply(t.Context(), bufio.NewReader(strings.NewReader(tc.line)), &got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) == 0 || got[0].Name != "w" {
			t.Errorf("%s: read %+v", tc.name, got)
		}
	}
}
