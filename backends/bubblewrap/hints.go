package bubblewrap

import (
	"fmt"
	"strings"
)

// sysctls are the kernel settings that decide whether an unprivileged
// user may make user namespaces; "" when the file does not exist.
type sysctls struct {
	unprivilegedClone string // kernel.unprivileged_userns_clone (Debian)
	apparmorRestrict  string // kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10+)
	maxUserNamespaces string // user.max_user_namespaces
}

// usernsHint turns a failed trial run of bwrap into one line that names
// the setting to change.
func usernsHint(s sysctls, bwrapOutput string) string {
	out := strings.TrimSpace(strings.ReplaceAll(bwrapOutput, "\n", " "))
	var fix string
	switch {
	case s.maxUserNamespaces == "0":
		fix = "user namespaces are off: run 'sysctl -w user.max_user_namespaces=15000' as root"
	case s.unprivilegedClone == "0":
		fix = "unprivileged user namespaces are off: run 'sysctl -w kernel.unprivileged_userns_clone=1' as root"
	case s.apparmorRestrict == "1":
		fix = "AppArmor restricts unprivileged user namespaces (Ubuntu 24.04): add an AppArmor profile that allows userns for /usr/bin/bwrap, or run 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0' as root"
	default:
		fix = "bubblewrap could not make a sandbox on this host"
	}
	if out == "" {
		return fix
	}
	return fmt.Sprintf("%s (bwrap said: %s)", fix, out)
}
