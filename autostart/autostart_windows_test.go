package autostart

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// The real Run key of the user running the test (Wine's registry under
// Wine), with a name of this run's own so a real entry is never touched.
func TestRunValueEnableDisable(t *testing.T) {
	l := Login{Name: fmt.Sprintf("sandboxdesk-test-%d", os.Getpid()), Exec: `C:\Users\Zoë\AppData\Local\Programs\sandboxdesk\sandboxdesk-app.exe`}
	t.Cleanup(func() { l.Disable() })
	if on, err := l.Enabled(); err != nil || on {
		t.Fatalf("before Enable: Enabled() = %v, %v", on, err)
	}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	got, kind, err := k.GetStringValue(l.Name)
	k.Close()
	if err != nil || kind != registry.SZ || got != `"`+l.Exec+`"` {
		t.Errorf("the Run value reads %q (type %d), %v; want %q as REG_SZ", got, kind, err, `"`+l.Exec+`"`)
	}
	if on, err := l.Enabled(); err != nil || !on {
		t.Errorf("after Enable: Enabled() = %v, %v", on, err)
	}
	for range 2 { // the second finds nothing to delete, and says nothing
		if err := l.Disable(); err != nil {
			t.Fatal(err)
		}
	}
	if on, err := l.Enabled(); err != nil || on {
		t.Errorf("after Disable: Enabled() = %v, %v", on, err)
	}
}

// Dir names another key: a fresh one is created, and one that does not
// exist reads as disabled.
func TestRunValueInAnotherKey(t *testing.T) {
	key := fmt.Sprintf(`Software\sandboxdesk-test-%d\Run`, os.Getpid())
	t.Cleanup(func() {
		registry.DeleteKey(registry.CURRENT_USER, key)
		registry.DeleteKey(registry.CURRENT_USER, key[:len(key)-len(`\Run`)])
	})
	l := Login{Name: "sandboxdesk", Exec: `C:\sandboxdesk\sandboxdesk-app.exe`, Dir: key}
	if on, err := l.Enabled(); err != nil || on {
		t.Fatalf("a key that does not exist: Enabled() = %v, %v", on, err)
	}
	if err := l.Disable(); err != nil {
		t.Fatalf("a key that does not exist: Disable() = %v", err)
	}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	if on, err := l.Enabled(); err != nil || !on {
		t.Errorf("after Enable: Enabled() = %v, %v", on, err)
	}
}
