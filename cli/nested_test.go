package cli

import (
	"flag"
	"strings"
	"testing"
	"time"

	"sandboxdesk/ipc"
)

// TestInspectShowsNestedUserns: inspect names nested user namespaces only
// on a sandbox that allows them, the one that opens more of the kernel.
func TestInspectShowsNestedUserns(t *testing.T) {
	for _, on := range []bool{false, true} {
		var got string
		for _, row := range sandboxDetail(ipc.Sandbox{Name: "w", Network: "on", NestedUserns: on}, time.Now()) {
			if row[0] == "Nested user namespaces" {
				got = row[1]
			}
		}
		want := map[bool]string{false: "", true: "allowed"}[on]
		if got != want {
			t.Errorf("nested user namespaces %v: inspect says %q, want %q", on, got, want)
		}
	}
}

// TestCreateTakesNestedUserns: the flag is in create's usage and parses.
func TestCreateTakesNestedUserns(t *testing.T) {
	if !strings.Contains(createCommand.usage, "[--nested-userns]") {
		t.Errorf("create's usage %q does not name --nested-userns", createCommand.usage)
	}
	fs := flag.NewFlagSet("create", flag.ContinueOnError)
	createCommand.flags(fs)
	if _, err := parseArgs(fs, []string{"w", "--nested-userns"}, 0); err != nil {
		t.Fatalf("create w --nested-userns: %v", err)
	}
	if f := fs.Lookup("nested-userns"); f == nil || f.Value.String() != "true" {
		t.Errorf("--nested-userns did not set the flag: %v", f)
	}
}
