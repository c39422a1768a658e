package sandboxes_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"sandboxdesk/sandboxes"
)

// TestConformance runs the reference's examples of named sandboxes, as the
// TypeScript and Python clients do, against the same controller when make
// clients-test runs them.
func TestConformance(t *testing.T) {
	ctx := t.Context()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "conf-go"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "conf-go-other"})
	if err != nil {
		t.Fatal(err)
	}
	sbx.RemoveAll(ctx)
	other.RemoveAll(ctx)
	create := func(name string, shape sandboxes.Shape) *sandboxes.Sandbox {
		t.Helper()
		box, err := sbx.Create(ctx, name, shape)
		if err != nil {
			t.Fatal(err)
		}
		return box
	}

	// meet-or-exceed: the big one serves the small ask; a bigger ask rebuilds
	big := create("w", sandboxes.Shape{Memory: sandboxes.GiB(2)})
	if small := create("w", sandboxes.Shape{Memory: sandboxes.MiB(256)}); small.ID != big.ID {
		t.Errorf("256 MiB after 2 GiB rebuilt (%s, then %s)", big.ID, small.ID)
	}
	if bigger := create("w", sandboxes.Shape{Memory: sandboxes.GiB(4)}); bigger.ID == big.ID {
		t.Errorf("4 GiB after 2 GiB reused %s", big.ID)
	}

	// ceilings meet-or-undercut: an hour's entitlement does not serve a minute
	hour := create("w", sandboxes.Shape{MaxLifetime: time.Hour})
	minute := create("w", sandboxes.Shape{MaxLifetime: time.Minute})
	if minute.ID == hour.ID {
		t.Errorf("a one-minute lifetime after a one-hour one reused %s", hour.ID)
	}

	// replace empties the workspace, and is not remembered
	minute.Exec(ctx, sandboxes.Cmd{Args: []string{"sh", "-c", "echo kept > /workspace/file.txt"}})
	fresh := create("w", sandboxes.Shape{Replace: true})
	if fresh.ID == minute.ID {
		t.Errorf("replace kept %s", minute.ID)
	}
	var ls strings.Builder
	if code, err := fresh.Exec(ctx, sandboxes.Cmd{Args: []string{"ls", "-A", "/workspace"}, Stdout: &ls}); code != 0 || err != nil || ls.Len() != 0 {
		t.Errorf("the workspace after replace: %q (%d, %v), want it empty", ls.String(), code, err)
	}
	if again := create("w", sandboxes.Shape{}); again.ID != fresh.ID {
		t.Errorf("the create after a replace rebuilt (%s, then %s)", fresh.ID, again.ID)
	}

	// list is scoped to the prefix
	if _, err := other.Create(ctx, "x", sandboxes.Shape{}); err != nil {
		t.Fatal(err)
	}
	names := func(c *sandboxes.Client) []string {
		list, err := c.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sb := range list {
			out = append(out, sb.Name)
		}
		return out
	}
	if got := names(sbx); !slices.Equal(got, []string{"w"}) {
		t.Errorf("list of conf-go = %v, want [w]", got)
	}
	if got := names(other); !slices.Equal(got, []string{"x"}) {
		t.Errorf("list of conf-go-other = %v, want [x]", got)
	}

	// remove reports whether there was anything
	first, err1 := sbx.Remove(ctx, "w")
	second, err2 := sbx.Remove(ctx, "w")
	if !first || second || err1 != nil || err2 != nil {
		t.Errorf("remove twice = %v (%v), %v (%v); want true, then false", first, err1, second, err2)
	}

	if removed, err := other.RemoveAll(ctx); err != nil || !slices.Equal(removed, []string{"x"}) {
		t.Errorf("removeAll = %v, %v; want [x]", removed, err)
	}
	if got := names(other); len(got) != 0 {
		t.Errorf("list after removeAll = %v", got)
	}
	if _, err := other.Create(ctx, "Not/A/Name", sandboxes.Shape{}); !errors.Is(err, sandboxes.ErrInvalid) {
		t.Errorf("a bad name: %v, want an invalid-kind error", err)
	}
}
