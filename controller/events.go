package controller

import (
	"sync"

	"sandboxdesk/ipc"
)

// broker fans events out to subscribers. Each subscriber has its own
// queue drained by its own goroutine, so a slow subscriber (a UI busy
// drawing, a socket client on a slow link) never blocks the controller.
// The queue is bounded: a subscriber that falls maxQueued events behind
// has stopped reading, and keeping everything for it would grow memory
// without end. It is dropped: its queue is replaced by one notice saying
// so, and its channel then closes, a clear end on which a client
// subscribes again and re-reads the state.
type broker struct {
	mu     sync.Mutex
	seq    int64
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	mu    sync.Mutex
	cond  *sync.Cond
	queue []ipc.Event
	done  bool
	out   chan ipc.Event
}

// maxQueued is how far a subscriber may fall behind before it is dropped.
const maxQueued = 256

// droppedMessage ends the events of a subscriber that stopped reading.
const droppedMessage = "events stopped: this subscriber fell 256 events behind; subscribe again and re-read the state"

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

func (b *broker) subscribe() (<-chan ipc.Event, func()) {
	s := &subscriber{out: make(chan ipc.Event)}
	s.cond = sync.NewCond(&s.mu)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	stop := make(chan struct{})
	go s.pump(stop)
	var once sync.Once
	return s.out, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(stop)
			s.finish()
		})
	}
}

// pump hands queued events to the subscriber's channel, in order.
func (s *subscriber) pump(stop chan struct{}) {
	defer close(s.out)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.done {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		e := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-stop:
			return
		}
	}
}

// push queues e, or, when the subscriber is maxQueued behind, replaces its
// queue with the notice that ends it and reports that it is dropped.
func (s *subscriber) push(e ipc.Event) (dropped bool) {
	s.mu.Lock()
	switch {
	case s.done:
	case len(s.queue) >= maxQueued:
		s.queue = append(s.queue[:0:0], ipc.Event{Time: e.Time, Seq: e.Seq, Kind: ipc.EventNotice, Message: droppedMessage})
		s.done, dropped = true, true
	default:
		s.queue = append(s.queue, e)
	}
	s.mu.Unlock()
	s.cond.Signal()
	return dropped
}

// finish lets the pump deliver what is queued, then close the channel.
func (s *subscriber) finish() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.cond.Signal()
}

func (b *broker) publish(e ipc.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.seq++
	e.Seq = b.seq
	for s := range b.subs {
		if s.push(e) {
			delete(b.subs, s)
		}
	}
}

// buffered counts the events queued for subscribers, and the subscribers.
func (b *broker) buffered() (events, subs int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.mu.Lock()
		events += len(s.queue)
		s.mu.Unlock()
	}
	return events, len(b.subs)
}

// close ends every subscription after what is queued is delivered.
func (b *broker) close() {
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[*subscriber]struct{}{}
	b.mu.Unlock()
	for s := range subs {
		s.finish()
	}
}
