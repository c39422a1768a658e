//go:build windows

package wire

import (
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// checkPrivate: the pipe's ACL has one entry, and it is this user's.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	conn, err := dialLocal(t.Context(), path)
	if err != nil {
		t.Fatalf("dial the pipe: %v", err)
	}
	defer conn.Close()
	sd, err := windows.GetSecurityInfo(windows.Handle(conn.(interface{ Fd() uintptr }).Fd()), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION|windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("read the pipe's ACL: %v", err)
	}
	me, _ := currentUser()
	sddl := sd.String()
	if !strings.Contains(sddl, "D:P(") || strings.Count(sddl, "(A;") != 1 || !strings.Contains(sddl, ";"+me.String()+")") {
		t.Errorf("the pipe's security is %s; want a protected DACL admitting only %s", sddl, me)
	}
}

// TestSecondListenerRefused: a pipe name already taken is not joined,
// so a squatter's pipe is never served on as if it were ours.
func TestSecondListenerRefused(t *testing.T) {
	if onWine() {
		t.Skip("Wine makes a pipe's \"first\" instance even when the name is taken; Windows refuses it")
	}
	path := SocketPath(t.TempDir())
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l2, err := Listen(path); err == nil {
		l2.Close()
		t.Fatal("a second listener on the same root's pipe was allowed")
	}
	var _ net.Listener = l
}
