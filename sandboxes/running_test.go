package sandboxes_test

import (
	"os"
	"testing"

	"sandboxdesk/sandboxes"
)

// TestRunningStartsNone: Running finds the controller that answers and
// starts none where none does, so quit never starts one to stop it.
func TestRunningStartsNone(t *testing.T) {
	ctx := t.Context()
	empty := t.TempDir()
	if sbx, err := sandboxes.Running(ctx, sandboxes.Config{Root: empty}); sbx != nil || err != nil {
		t.Fatalf("an empty root: %v, %v; want no client and no error", sbx, err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("Running wrote into a root it only looked at: %v", entries)
	}
	if _, err := sandboxes.Open(ctx, sandboxes.Config{}); err != nil { // the tests' root, started if need be
		t.Fatal(err)
	}
	sbx, err := sandboxes.Running(ctx, sandboxes.Config{})
	if err != nil || sbx == nil {
		t.Fatalf("the tests' root: %v, %v; want its controller", sbx, err)
	}
	st, err := sbx.Status(ctx)
	if err != nil || st.Pid <= 0 || st.Root != sbx.Root() {
		t.Errorf("status %+v, %v; want the controller of %s", st, err, sbx.Root())
	}
}
