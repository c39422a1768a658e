package locale

import "testing"

func TestFix(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want map[string]string
	}{
		{map[string]string{"LANG": "C.UTF-8"}, map[string]string{"LANG": "en_US.UTF-8"}},
		{map[string]string{"LANG": "C"}, map[string]string{"LANG": "en_US.UTF-8"}},
		{map[string]string{"LANG": "POSIX"}, map[string]string{"LANG": "en_US.UTF-8"}},
		{map[string]string{"LANG": "de_DE.UTF-8"}, map[string]string{"LANG": "de_DE.UTF-8"}},
		{map[string]string{"LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}, map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "fr_FR.UTF-8"}},
		{map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "C"}, map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "C"}},
		{map[string]string{}, map[string]string{}},
	}
	for _, tt := range tests {
		env := map[string]string{}
		for k, v := range tt.env {
			env[k] = v
		}
		fix(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		for k, v := range tt.want {
			if env[k] != v {
				t.Errorf("%v: %s = %q, want %q", tt.env, k, env[k], v)
			}
		}
	}
}
