package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
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
		got := bytes.NewBuffer(EncodeReply(body, nil))
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
	got := bytes.NewBuffer(EncodeReply(nil, Errorf(ErrNotFound, "no sandbox named w")))
	if got.String() != `{"ok":false,"error":{"kind":"notFound","message":"no sandbox named w"}}`+"\n" {
		t.Errorf("error line %q", got.String())
	}
	got = bytes.NewBuffer(EncodeReply(func() {}, nil))
	if !bytes.Contains(got.Bytes(), []byte(`"message":"encode reply: json: unsupported type: func()"`)) {
		t.Errorf("unencodable body: %q", got.String())
	}
}

// TestDecodeReply: what EncodeReply writes, DecodeReply reads back with
// its kind, and a line that is not a reply is the controller's fault.
func TestDecodeReply(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		want     string // the decoded body's name, when it succeeds
		wantKind error  // nil: no error
		message  string
	}{
		{name: "a body", line: string(EncodeReply(Sandbox{Name: "w"}, nil)), want: "w"},
		{name: "a kind", line: string(EncodeReply(nil, Errorf(ErrNotFound, "no sandbox named w"))), wantKind: ErrNotFound, message: "no sandbox named w"},
		{name: "no kind", line: `{"ok":false,"error":{"message":"disk on fire"}}`, message: "disk on fire"},
		{name: "a kind from a newer controller", line: `{"ok":false,"error":{"kind":"teapot","message":"short and stout"}}`, message: "short and stout"},
		{name: "failed without a reason", line: `{"ok":false}`, wantKind: ErrUnavailable, message: "the controller failed without saying why"},
		{name: "not JSON", line: "HTTP/1.1 400 Bad Request\n", wantKind: ErrUnavailable, message: "unreadable reply from the controller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Sandbox
			err := DecodeReply([]byte(tt.line), &got)
			if tt.message == "" {
				if err != nil || got.Name != tt.want {
					t.Fatalf("decoded %+v, %v; want the sandbox %s", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("error %v, want one saying %q", err, tt.message)
			}
			if tt.wantKind != nil && !errors.Is(err, tt.wantKind) {
				t.Errorf("error %v is not of kind %v", err, tt.wantKind)
			}
			if tt.wantKind == nil && KindName(err) != "" {
				t.Errorf("error %v has kind %s, want none", err, KindName(err))
			}
		})
	}
}

// TestReplyBodyReadInPlace: what the client reads from a reply line, by
// the one-pass path for the lines the controller writes and by the whole
// reply for others, is the body that was sent.
func TestReplyBodyReadInPlace(t *testing.T) {
	list := []Sandbox{{Name: "w", ID: "sb-1", State: StateRunning, MemoryMiB: 2048}, {Name: "x}", ID: "sb-2"}}
	written := string(EncodeReply(list, nil))
	for _, tc := range []struct{ name, line string }{
		{"as the controller writes it", written},
		{"with a field after the body", `{"ok":true,"body":[{"name":"w","id":"sb-1","state":"running","memoryMiB":2048},{"name":"x}","id":"sb-2"}],"note":"}"}` + "\n"},
		{"with the body last but spaced", `{"ok": true, "body": [{"name":"w"}]}` + "\n"},
	} {
		var got []Sandbox
		if err := DecodeReply([]byte(tc.line), &got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) == 0 || got[0].Name != "w" {
			t.Errorf("%s: read %+v", tc.name, got)
		}
	}
}
