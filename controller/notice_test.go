package controller

import (
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

// TestLimitHitsStayOnTheSandbox: what a backend's limits did reaches
// inspect (counts and the last notice) and the store, not only the event
// log.
func TestLimitHitsStayOnTheSandbox(t *testing.T) {
	e := newEnv(t)
	sb := e.create(ipc.CreateRequest{Name: "w"})
	e.c.backendEvent(t.Context(), backends.Event{ID: sb.ID, OOMKills: 2, Message: "out of memory: the kernel killed 2 process(es)"})
	e.c.backendEvent(t.Context(), backends.Event{ID: sb.ID, PidsLimitHits: 3, Message: "process limit: 3 new process(es) refused"})
	got, err := e.c.Inspect(t.Context(), ipc.Ref{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if got.OOMKills != 2 || got.PidsLimitHits != 3 || got.LastNotice != "process limit: 3 new process(es) refused" || got.LastNoticeAt == nil {
		t.Errorf("inspect after two limit hits: oomKills %d, pidsLimitHits %d, lastNotice %q", got.OOMKills, got.PidsLimitHits, got.LastNotice)
	}
	recs, err := e.c.store.loadAll(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == sb.ID && (r.OOMKills != 2 || r.PidsLimitHits != 3 || r.LastNotice == "") {
			t.Errorf("stored: oomKills %d, pidsLimitHits %d, lastNotice %q", r.OOMKills, r.PidsLimitHits, r.LastNotice)
		}
	}
}
