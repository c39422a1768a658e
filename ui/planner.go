package ui

import (
	"context"

	"sandboxdesk/ipc"
)

// ClientPlanner answers the overview's questions by asking the controller
// over ipc: in the app, the in-process transport; the UI keeps no figure
// of its own.
type ClientPlanner struct{ Client ipc.Client }

// Defaults asks for what a new sandbox would get now.
func (p ClientPlanner) Defaults(ctx context.Context) (ipc.Defaults, error) {
	var d ipc.Defaults
	err := p.Client.Call(ctx, ipc.DefaultsRequest{}, &d)
	return d, err
}

// Capacity asks for this host's recommended capacity.
func (p ClientPlanner) Capacity(ctx context.Context) (ipc.Capacity, error) {
	var c ipc.Capacity
	err := p.Client.Call(ctx, ipc.CapacityRequest{}, &c)
	return c, err
}
