//go:build linux

package bubblewrap

import (
	"testing"
)

// TestWorkspaceMappingMadeAhead: as root, the id mapping of the uid the
// next new sandbox gets is made once a sandbox is removed, and that
// sandbox's start takes it rather than making its own.
func TestWorkspaceMappingMadeAhead(t *testing.T) {
	r := newRig(t)
	if !r.b.asRoot {
		t.Skip("only a root controller maps workspaces")
	}
	first := r.spec("first")
	r.start(first, 256)
	if err := r.b.Remove(t.Context(), first.ID); err != nil {
		t.Fatal(err)
	}
	r.b.aheadDoing.Wait()
	r.b.mu.Lock()
	ahead := r.b.ahead
	r.b.mu.Unlock()
	if ahead.ns == nil {
		t.Fatal("no mapping made ahead after a removal")
	}
	if next := r.b.uids.next(); ahead.uid != next {
		t.Fatalf("mapping made ahead for uid %d, the next sandbox gets %d", ahead.uid, next)
	}
	s := r.spec("second")
	r.start(s, 256)
	uid, _ := readUIDFile(s.StateDir)
	if uid != ahead.uid {
		t.Skipf("another controller took uid %d meanwhile", ahead.uid)
	}
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.b.mappings[uid] != ahead.ns {
		t.Errorf("the second sandbox (uid %d) did not take the mapping made ahead", uid)
	}
}
