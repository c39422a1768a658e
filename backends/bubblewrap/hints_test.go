package bubblewrap

import (
	"strings"
	"testing"
)

func TestUsernsHint(t *testing.T) {
	tests := []struct {
		s    sysctls
		want string
	}{
		{sysctls{maxUserNamespaces: "0"}, "user.max_user_namespaces"},
		{sysctls{unprivilegedClone: "0", maxUserNamespaces: "100"}, "kernel.unprivileged_userns_clone=1"},
		{sysctls{apparmorRestrict: "1", unprivilegedClone: "1"}, "kernel.apparmor_restrict_unprivileged_userns=0"},
		{sysctls{}, "could not make a sandbox"},
	}
	for _, tt := range tests {
		got := usernsHint(tt.s, "bwrap: setting up uid map: Permission denied\n")
		if !strings.Contains(got, tt.want) || !strings.Contains(got, "Permission denied") || strings.Contains(got, "\n") {
			t.Errorf("%+v: %q, want one line with %q and bwrap's words", tt.s, got, tt.want)
		}
	}
}
