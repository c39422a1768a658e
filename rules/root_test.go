package rules

import (
	"path/filepath"
	"testing"
)

func TestDefaultRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"linux", nil, "/home/ada", "/home/ada/.local/share/sandboxdesk"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data/ada"}, "/home/ada", "/data/ada/sandboxdesk"},
		{"linux", map[string]string{"XDG_DATA_HOME": "relative"}, "/home/ada", "/home/ada/.local/share/sandboxdesk"},
		{"darwin", nil, "/Users/ada", "/Users/ada/Library/Application Support/sandboxdesk"},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\ada\AppData\Local`}, `C:\Users\ada`, `C:\Users\ada\AppData\Local\sandboxdesk`},
		{"windows", nil, `C:\Users\ada`, `C:\Users\ada\AppData\Local\sandboxdesk`},
		{"linux", nil, "", ""},
	}
	for _, tt := range tests {
		if got := defaultRoot(tt.goos, env(tt.env), tt.home); got != tt.want {
			t.Errorf("defaultRoot(%s, %v, %q) = %q, want %q", tt.goos, tt.env, tt.home, got, tt.want)
		}
	}
}

func TestResolveRootPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(RootEnv, filepath.Join(dir, "from-env"))
	if got, _ := ResolveRoot(filepath.Join(dir, "from-flag")); got != filepath.Join(dir, "from-flag") {
		t.Errorf("flag lost to %q", got)
	}
	if got, _ := ResolveRoot(""); got != filepath.Join(dir, "from-env") {
		t.Errorf("env lost to %q", got)
	}
	t.Setenv(RootEnv, "")
	t.Setenv("HOME", dir)
	t.Setenv("XDG_DATA_HOME", "")
	got, err := ResolveRoot("")
	if err != nil || !filepath.IsAbs(got) {
		t.Errorf("ResolveRoot() = %q, %v; want an absolute default", got, err)
	}
}
