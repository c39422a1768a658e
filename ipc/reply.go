package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
)

// MaxMessage bounds one request or reply line.
const MaxMessage = 1 << 20

// EncodeReply makes the reply line (with its newline) for a request's
// answer: body when err is nil, else err with its kind.
func EncodeReply(body any, err error) []byte {
	if err == nil {
		b, merr := json.Marshal(body)
		if merr == nil {
			return okLine(b)
		}
		err = errors.New("encode reply: " + merr.Error())
	}
	line, _ := json.Marshal(reply{Error: &wireError{Kind: KindName(err), Message: err.Error()}})
	return append(line, '\n')
}

// okLine is the reply line for an encoded body, spliced in as it is: a
// list of a thousand sandboxes is encoded once, not again (checked and
// copied) as a json.RawMessage inside the reply, and written in one write.
func okLine(body []byte) []byte {
	const head, tail = `{"ok":true,"body":`, "}\n"
	line := make([]byte, 0, len(head)+len(body)+len(tail))
	return append(append(append(line, head...), body...), tail...)
}

// DecodeReply reads a reply line into out, a pointer to the reply type
// the request names (nil to drop the body). A failure the line reports
// comes back as an *Error of its kind; a line that is not a reply is
// ErrUnavailable, since the controller that sent it cannot be trusted to
// have done anything.
func DecodeReply(line []byte, out any) error {
	// a success as okLine writes it: the body is decoded where it lies, in
	// one pass, not scanned whole, copied out as a raw message and decoded
	// again (a list of a thousand sandboxes is half a megabyte)
	if body, ok := okBody(line); ok {
		if out == nil {
			return nil
		}
		var syntax *json.SyntaxError
		if err := json.Unmarshal(body, out); !errors.As(err, &syntax) {
			return err
		}
		// not the body alone after all (a field after it): read it whole
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return Errorf(ErrUnavailable, "unreadable reply from the controller: %v", err)
	}
	if !rep.OK {
		if rep.Error == nil {
			return Errorf(ErrUnavailable, "the controller failed without saying why")
		}
		kind := KindByName(rep.Error.Kind)
		if kind == nil {
			return errors.New(rep.Error.Message)
		}
		return &Error{Kind: kind, Message: rep.Error.Message}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(rep.Body, out)
}

// okBody is the body of a reply line shaped as okLine makes it.
func okBody(line []byte) ([]byte, bool) {
	const head, tail = `{"ok":true,"body":`, "}"
	line = bytes.TrimRight(line, " \t\r\n")
	if !bytes.HasPrefix(line, []byte(head)) || !bytes.HasSuffix(line, []byte(tail)) || len(line) < len(head)+len(tail)+1 {
		return nil, false
	}
	return line[len(head) : len(line)-len(tail)], true
}
