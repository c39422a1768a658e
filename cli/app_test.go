package cli

import "testing"

func TestWantsApp(t *testing.T) {
	tests := []struct {
		args     []string
		wantRoot string
		wantApp  bool
	}{
		{nil, "", true},
		{[]string{"--root", "/home/me/sd"}, "/home/me/sd", true},
		{[]string{"-root", "/home/me/sd"}, "/home/me/sd", true},
		{[]string{"--root=/home/me/sd"}, "/home/me/sd", true},
		{[]string{"--root", ""}, "", false}, // the command line says it is empty
		{[]string{"--root="}, "", false},
		{[]string{"list"}, "", false},
		{[]string{"--root", "/home/me/sd", "list"}, "", false},
	}
	for _, tt := range tests {
		root, ok := WantsApp(tt.args)
		if root != tt.wantRoot || ok != tt.wantApp {
			t.Errorf("WantsApp(%q) = %q, %v; want %q, %v", tt.args, root, ok, tt.wantRoot, tt.wantApp)
		}
	}
}
