package ipc

import (
	"encoding/json"
	"reflect"

	"sandboxdesk/stream"
)

// Request is one of the request types of this package. Each names itself
// on the wire with Kind.
type Request interface{ Kind() string }

// The requests and, in each comment, what answers them.
type (
	// ListRequest -> []Sandbox
	ListRequest struct {
		Prefix string `json:"prefix,omitempty"`
	}
	// InspectRequest -> Sandbox
	InspectRequest struct{ Ref }
	// StopRequest -> Sandbox
	StopRequest struct{ Ref }
	// RemoveRequest -> RemoveReply. All removes every sandbox of Prefix.
	RemoveRequest struct {
		Prefix string   `json:"prefix,omitempty"`
		Names  []string `json:"names,omitempty"`
		All    bool     `json:"all,omitempty"`
	}
	// DefaultsRequest -> Defaults
	DefaultsRequest struct{}
	// CapacityRequest -> Capacity
	CapacityRequest struct{}
	// LimitsRequest -> Limits
	LimitsRequest struct{}
	// SetLimitsRequest -> Limits. A nil limit follows the recommendation.
	SetLimitsRequest struct {
		AtOnce   *int `json:"atOnce,omitempty"`
		Retained *int `json:"retained,omitempty"`
	}
	// SetDefaultMemoryRequest -> Defaults. Nil shares the budget again.
	SetDefaultMemoryRequest struct {
		MemoryMiB *int64 `json:"memoryMiB,omitempty"`
	}
	// ImagesRequest -> []Image
	ImagesRequest struct{}
	// ImportImageRequest -> Image. File is a path on the controller's host.
	ImportImageRequest struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	// RemoveImageRequest -> RemoveReply
	RemoveImageRequest struct {
		Name string `json:"name"`
	}
	// PullImageRequest -> Image. Downloads the image called Name for this
	// machine from Catalogue (a URL; the one set in Settings when empty),
	// for Backend (any, when empty); EventProgress events with Image set
	// tell how far it is.
	PullImageRequest struct {
		Name      string `json:"name"`
		Backend   string `json:"backend,omitempty"`
		Catalogue string `json:"catalogue,omitempty"`
	}
	// CatalogueRequest -> Catalogue: the catalogue set and what it offers.
	CatalogueRequest struct{}
	// SetCatalogueRequest -> Catalogue. An empty URL sets none.
	SetCatalogueRequest struct {
		URL string `json:"url"`
	}
	// QuitRequest -> Empty: the controller stops its sandboxes and exits.
	QuitRequest struct{}
	// StatusRequest -> Status
	StatusRequest struct{}
	// ExecRequest starts a command; the connection then carries its
	// streams (package stream) until its exit status.
	ExecRequest struct {
		Ref
		Args []string `json:"args"`
		Env  []string `json:"env,omitempty"`
		Dir  string   `json:"dir,omitempty"`
		// TTY runs the command on a terminal of this size (shell).
		TTY *stream.Size `json:"tty,omitempty"`
		// Handoff asks for the connection to the command itself (stream
		// frame Handoff): on a Unix socket the controller passes it over,
		// so the command's bytes go past the controller.
		Handoff bool `json:"handoff,omitempty"`
	}
	// SubscribeRequest turns the connection into a stream of Event lines.
	SubscribeRequest struct{}
	// RangesRequest -> Ranges, for a backend ("" for the default one).
	RangesRequest struct {
		Backend string `json:"backend,omitempty"`
	}
)

func (CreateRequest) Kind() string           { return "create" }
func (ListRequest) Kind() string             { return "list" }
func (InspectRequest) Kind() string          { return "inspect" }
func (StopRequest) Kind() string             { return "stop" }
func (RemoveRequest) Kind() string           { return "remove" }
func (DefaultsRequest) Kind() string         { return "defaults" }
func (CapacityRequest) Kind() string         { return "capacity" }
func (LimitsRequest) Kind() string           { return "limits" }
func (SetLimitsRequest) Kind() string        { return "setLimits" }
func (SetDefaultMemoryRequest) Kind() string { return "setDefaultMemory" }
func (ImagesRequest) Kind() string           { return "images" }
func (ImportImageRequest) Kind() string      { return "importImage" }
func (RemoveImageRequest) Kind() string      { return "removeImage" }
func (PullImageRequest) Kind() string        { return "pullImage" }
func (CatalogueRequest) Kind() string        { return "catalogue" }
func (SetCatalogueRequest) Kind() string     { return "setCatalogue" }
func (QuitRequest) Kind() string             { return "quit" }
func (StatusRequest) Kind() string           { return "status" }
func (ExecRequest) Kind() string             { return "exec" }
func (SubscribeRequest) Kind() string        { return "subscribe" }
func (RangesRequest) Kind() string           { return "ranges" }

// newRequest makes an empty request of a kind, for decoding.
var newRequest = map[string]func() Request{
	"create":           func() Request { return &CreateRequest{} },
	"list":             func() Request { return &ListRequest{} },
	"inspect":          func() Request { return &InspectRequest{} },
	"stop":             func() Request { return &StopRequest{} },
	"remove":           func() Request { return &RemoveRequest{} },
	"defaults":         func() Request { return &DefaultsRequest{} },
	"capacity":         func() Request { return &CapacityRequest{} },
	"limits":           func() Request { return &LimitsRequest{} },
	"setLimits":        func() Request { return &SetLimitsRequest{} },
	"setDefaultMemory": func() Request { return &SetDefaultMemoryRequest{} },
	"images":           func() Request { return &ImagesRequest{} },
	"importImage":      func() Request { return &ImportImageRequest{} },
	"removeImage":      func() Request { return &RemoveImageRequest{} },
	"pullImage":        func() Request { return &PullImageRequest{} },
	"catalogue":        func() Request { return &CatalogueRequest{} },
	"setCatalogue":     func() Request { return &SetCatalogueRequest{} },
	"quit":             func() Request { return &QuitRequest{} },
	"status":           func() Request { return &StatusRequest{} },
	"exec":             func() Request { return &ExecRequest{} },
	"subscribe":        func() Request { return &SubscribeRequest{} },
	"ranges":           func() Request { return &RangesRequest{} },
}

// Replies that are not defined elsewhere.
type (
	// RemoveReply says what was there to remove.
	RemoveReply struct {
		Removed []string `json:"removed"`
		Missing []string `json:"missing,omitempty"`
	}
	// Image is one image a backend offers.
	Image struct {
		Backend     string `json:"backend"`
		Name        string `json:"name"`
		Digest      string `json:"digest"`
		Description string `json:"description,omitempty"`
	}
	// Catalogue is the image catalogue set (URL, "" for none) and the
	// images it offers this machine, for the backends it has.
	Catalogue struct {
		URL    string           `json:"url"`
		Images []CatalogueImage `json:"images"`
	}
	// CatalogueImage is one image a catalogue offers; Size is the bytes
	// a pull downloads.
	CatalogueImage struct {
		Backend     string `json:"backend"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Size        int64  `json:"size"`
	}
	// Status describes the controller answering.
	Status struct {
		Pid  int    `json:"pid"`
		Root string `json:"root"`
	}
	// Empty is the reply with nothing to say.
	Empty struct{}
	// Range is an inclusive range of whole numbers.
	Range struct {
		Min int64 `json:"min"`
		Max int64 `json:"max"`
	}
	// Ranges are the values a person may type for a sandbox of a backend,
	// and the backend's images: what the Add dialog validates against.
	Ranges struct {
		Backend   string `json:"backend"`
		VM        bool   `json:"vm"` // memory is reserved, not a limit
		MemoryMiB Range  `json:"memoryMiB"`
		CPUs      Range  `json:"cpus"`
		DiskMiB   Range  `json:"diskMiB"`
		// Images are the backend's images, its default first.
		Images []string `json:"images"`
		// Backends names every backend the controller offers, its
		// default first: a choice to show when there is more than one.
		Backends []string `json:"backends"`
	}
)

// envelope is one request line on the socket.
type envelope struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body,omitempty"`
}

// reply is one reply line on the socket.
type reply struct {
	OK    bool            `json:"ok"`
	Body  json.RawMessage `json:"body,omitempty"`
	Error *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
}

// DecodeRequest reads one request line. Every failure is ErrInvalid, worded
// for the client.
func DecodeRequest(line []byte) (Request, error) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, Errorf(ErrInvalid, "malformed request: %v", err)
	}
	mk, ok := newRequest[env.Type]
	if !ok {
		return nil, Errorf(ErrInvalid, "unknown request type %q", env.Type)
	}
	req := mk()
	if len(env.Body) > 0 && string(env.Body) != "null" {
		if err := json.Unmarshal(env.Body, req); err != nil {
			return nil, Errorf(ErrInvalid, "malformed %s request: %v", env.Type, err)
		}
	}
	return deref(req), nil
}

// deref turns the decoded pointer back into the value type callers
// switch on.
func deref(r Request) Request { return reflect.ValueOf(r).Elem().Interface().(Request) }

// EncodeRequest makes a request line (with its newline).
func EncodeRequest(r Request) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(envelope{Type: r.Kind(), Body: body})
	return append(line, '\n'), err
}
