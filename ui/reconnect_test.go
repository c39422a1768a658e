package ui

import (
	"context"
	"sync/atomic"
	"testing"

	"sandboxdesk/ipc"
)

// goneClient is a controller that went away: every subscription fails,
// and counts.
type goneClient struct {
	ipc.Client
	tries atomic.Int64
}

func (g *goneClient) Subscribe(context.Context) (<-chan ipc.Event, error) {
	g.tries.Add(1)
	return nil, ipc.Errorf(ipc.ErrUnavailable, "dial: no such file or directory")
}

// When the controller goes away the window says so and what to do, and
// keeps trying to reach it.
func TestLostControllerIsSaid(t *testing.T) {
	r := newRig(t)
	gone := &goneClient{Client: r.client}
	r.u.client = gone
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); r.u.Run(ctx) }()
	r.eventually("the window says the controller is lost, and tries again", func() bool {
		return r.u.main.status.Text == lostLine(r.u.root) && gone.tries.Load() >= 2
	})
	cancel()
	<-ran
}
