package ipc

import (
	"context"

	"sandboxdesk/stream"
)

// The two sides of every conversation with a controller, with no
// transport in them: package wire carries them over a socket, a named
// pipe or a channel in the same process.

// Client talks to a controller. Call fills out, a pointer to the reply
// type the request names (or nil when the reply does not matter).
type Client interface {
	Call(ctx context.Context, req Request, out any) error
	Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error)
	Subscribe(ctx context.Context) (<-chan Event, error)
}

// Handler answers requests. The controller implements it once; every
// transport calls it, so no request is handled in two places.
type Handler interface {
	Handle(ctx context.Context, req Request) (any, error)
	Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error)
	Subscribe() (<-chan Event, func())
}
