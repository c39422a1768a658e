package ipc

import "time"

// EventKind tells a subscriber what an event is about. Only KindState
// changes what a sandbox is; the UI refetches defaults on those alone.
type EventKind string

const (
	// EventState: a sandbox's runtime state changed (or it was removed).
	EventState EventKind = "state"
	// EventProgress: a tick of a long step (a download, a slow start).
	EventProgress EventKind = "progress"
	// EventNotice: something a person should see, such as an OOM kill,
	// that changes no state.
	EventNotice EventKind = "notice"
)

// Event is one notification from the controller to its subscribers.
type Event struct {
	Seq     int64     `json:"seq"`
	Time    time.Time `json:"time"`
	Kind    EventKind `json:"kind"`
	Sandbox string    `json:"sandbox,omitempty"` // full name
	ID      string    `json:"id,omitempty"`
	// State is the new state for EventState; "" when the sandbox is gone.
	State   State  `json:"state,omitempty"`
	Message string `json:"message,omitempty"`
	// Progress is 0..1 for EventProgress, -1 when the total is unknown.
	Progress float64 `json:"progress,omitempty"`
	// Image names the image a pull's EventProgress is about (and Sandbox
	// is empty); Download says how far it is.
	Image    string    `json:"image,omitempty"`
	Download *Download `json:"download,omitempty"`
}

// Download is how far a download is: bytes of the total, and its rate.
type Download struct {
	Bytes       int64 `json:"bytes"`
	Total       int64 `json:"total"`
	BytesPerSec int64 `json:"bytesPerSec"`
}
