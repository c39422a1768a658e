package ipc

import "sort"

// ProtocolVersion is the version of the socket protocol (docs/protocol.md).
// It changes only when a change would break a client written for the last
// one: a renamed field, a reply of another shape, a frame read differently.
// Additions (a new request, a new optional field, a new feature word) keep
// the version and show in Hello instead.
const ProtocolVersion = 1

// features are what this controller offers beyond the request list, so a
// client asks for a power by name instead of guessing from a version.
var features = []string{
	"exec.stdin",     // stdin frames and their end
	"exec.signal",    // signal frames reach the command
	"exec.tty",       // exec on a terminal, with resize frames
	"exec.errorKind", // an errorKind frame names the kind of the error frame after it
	"exec.credit",    // credit frames bound the input a client sends ahead
	"exec.handoff",   // an exec's connection to its command handed to the client
	"create.replace",
	"remove.all",
	"subscribe",
}

// HelloRequest -> Hello: the handshake. It is answered by the protocol
// itself, not the controller, so it works the same in every version.
type HelloRequest struct {
	// Client names the client, for the controller's log; optional.
	Client string `json:"client,omitempty"`
}

// Hello tells a client which protocol it speaks to and what it offers.
type Hello struct {
	Protocol int      `json:"protocol"`
	Features []string `json:"features"`
	// Requests are the request types this controller decodes.
	Requests []string `json:"requests"`
}

func (HelloRequest) Kind() string { return "hello" }

// the handshake lives beside the version it reports, not in the list of
// the controller's own requests
func init() { newRequest["hello"] = func() Request { return &HelloRequest{} } }

// NewHello is the handshake's answer.
func NewHello() Hello {
	kinds := make([]string, 0, len(newRequest))
	for k := range newRequest {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return Hello{Protocol: ProtocolVersion, Features: append([]string(nil), features...), Requests: kinds}
}
