package wire

import (
	"strings"
	"testing"
)

func TestPipeName(t *testing.T) {
	a := PipeName(`C:\Users\Zoë Doe\AppData\Local\sandboxdesk\control.sock`)
	same := []string{
		`c:\users\zoë doe\appdata\local\sandboxdesk\control.sock`,
		`C:/Users/Zoë Doe/AppData/Local/sandboxdesk/control.sock`,
		`C:\Users\Zoë Doe\AppData\Local\sandboxdesk\.\control.sock`,
	}
	for _, p := range same {
		if got := PipeName(p); got != a {
			t.Errorf("PipeName(%q) = %s, want %s (the same root)", p, got, a)
		}
	}
	for _, p := range []string{`C:\Users\Zoë Doe\AppData\Local\sandboxdesk2\control.sock`, `D:\sandboxdesk\control.sock`} {
		if PipeName(p) == a {
			t.Errorf("PipeName(%q) is another root's pipe", p)
		}
	}
	long := `C:\` + strings.Repeat(`a very deep folder\`, 40) + "control.sock"
	if !strings.HasPrefix(a, `\\.\pipe\sandboxdesk-`) || len(PipeName(long)) != len(a) {
		t.Errorf("pipe names %s and %s: want the pipe prefix and one short length", a, PipeName(long))
	}
}
