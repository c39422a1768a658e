package cli

import (
	"strings"
	"testing"

	"sandboxdesk/version"
)

// TestVersionIsOneLine: --version answers without a controller or a
// root, in one line on stdout, status 0, whatever the build stamped.
func TestVersionIsOneLine(t *testing.T) {
	old := version.Version
	t.Cleanup(func() { version.Version = old })
	for _, stamped := range []string{"dev", "v1.2.0", "v1.2.0-3-gabc1234-dirty"} {
		version.Version = stamped
		var out, errb strings.Builder
		code := Run(t.Context(), []string{"--version"}, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if want := "sandboxdesk " + stamped + "\n"; code != ExitOK || out.String() != want || errb.Len() != 0 {
			t.Errorf("--version built as %s: status %d, stdout %q, stderr %q; want 0 and %q", stamped, code, out.String(), errb.String(), want)
		}
	}
}
