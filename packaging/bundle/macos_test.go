package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"sandboxdesk/plist"
)

func TestInfoPlist(t *testing.T) {
	b, err := infoPlist("v0.4.0-12-gabc1234")
	if err != nil {
		t.Fatal(err)
	}
	info, err := plist.Decode(b)
	if err != nil {
		t.Fatalf("the Info.plist does not read back: %v\n%s", err, b)
	}
	for key, want := range map[string]any{
		"CFBundleIdentifier":         "dev.sandboxdesk.app",
		"CFBundleExecutable":         "sandboxdesk-app",
		"CFBundleIconFile":           "sandboxdesk.icns",
		"CFBundlePackageType":        "APPL",
		"CFBundleShortVersionString": "0.4.0",
		"CFBundleVersion":            "0.4.0",
		"SandboxdeskVersion":         "v0.4.0-12-gabc1234",
		"LSMinimumSystemVersion":     "13.0", // vz
		"LSUIElement":                false,  // a Dock icon: the window is always reachable
		"NSHighResolutionCapable":    true,
	} {
		if info[key] != want {
			t.Errorf("%s = %#v, want %#v", key, info[key], want)
		}
	}
}

// The app tells macOS who it is by the same ID the bundle declares, or
// its preferences and notifications belong to another app.
func TestBundleIDIsTheAppsID(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "desktop.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const appID = "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("desktop.go no longer declares appID")
	}
	if string(m[1]) != bundleID {
		t.Errorf("the app's ID is %q, the bundle's %q", m[1], bundleID)
	}
}

func TestEntitlements(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "darwin", "entitlements.plist"))
	if err != nil {
		t.Fatal(err)
	}
	ent, err := plist.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want any
		why  string
	}{
		{"com.apple.security.virtualization", true, "vz refuses to start a VM without it"},
		{"com.apple.security.network.client", true, "the guest's NAT network"},
		{"com.apple.security.app-sandbox", nil, "the App Sandbox would keep the app from its root folder and its command line"},
		{"com.apple.security.get-task-allow", nil, "a debugger's door, not for a release"},
	} {
		if got := ent[tc.key]; got != tc.want {
			t.Errorf("%s = %#v, want %#v: %s", tc.key, got, tc.want, tc.why)
		}
	}
}

func TestBuildMacApp(t *testing.T) {
	dir := t.TempDir()
	stand := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := macApp{
		Version: "v1.2.3",
		App:     stand("app", "#!/bin/sh\necho the app\n"),
		CLI:     stand("cli", "#!/bin/sh\necho the command line\n"),
		Serve:   stand("serve", "#!/bin/sh\necho the controller\n"),
		Icon:    filepath.Join("..", "..", "assets", "icons", "sandboxdesk.icns"),
	}
	out := filepath.Join(dir, "sandboxdesk.app")
	// a stale file from an earlier build must not survive
	if err := os.MkdirAll(filepath.Join(out, "Contents", "MacOS"), 0o755); err != nil {
		t.Fatal(err)
	}
	stand(filepath.Join("sandboxdesk.app", "Contents", "MacOS", "old"), "stale")
	if err := a.build(out); err != nil {
		t.Fatal(err)
	}
	icns, err := os.ReadFile(a.Icon)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		mode os.FileMode
		want []byte
	}{
		{"Contents/MacOS/sandboxdesk-app", 0o755, []byte("#!/bin/sh\necho the app\n")},
		{"Contents/MacOS/sandboxdesk", 0o755, []byte("#!/bin/sh\necho the command line\n")},
		{"Contents/MacOS/sandboxdesk-serve", 0o755, []byte("#!/bin/sh\necho the controller\n")},
		{"Contents/Resources/sandboxdesk.icns", 0o644, icns},
		{"Contents/PkgInfo", 0o644, []byte("APPL????")},
	} {
		p := filepath.Join(out, filepath.FromSlash(tc.path))
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		// Windows has no modes to check (the bundle is built on a Mac)
		if runtime.GOOS != "windows" && st.Mode().Perm() != tc.mode {
			t.Errorf("%s: mode %v, want %v", tc.path, st.Mode().Perm(), tc.mode)
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, tc.want) {
			t.Errorf("%s: not the file it was built from", tc.path)
		}
	}
	if !bytes.HasPrefix(icns, []byte("icns")) {
		t.Errorf("the icon is not an .icns")
	}
	info, err := os.ReadFile(filepath.Join(out, "Contents", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := plist.Decode(info)
	if err != nil {
		t.Fatal(err)
	}
	// what Info.plist names is there
	if _, err := os.Stat(filepath.Join(out, "Contents", "MacOS", m["CFBundleExecutable"].(string))); err != nil {
		t.Errorf("the executable the Info.plist names: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "Contents", "Resources", m["CFBundleIconFile"].(string))); err != nil {
		t.Errorf("the icon the Info.plist names: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "Contents", "MacOS", "old")); err == nil {
		t.Error("a file of an earlier build is still in the bundle")
	}
}

func TestBuildMacAppRefuses(t *testing.T) {
	dir := t.TempDir()
	if err := (macApp{Version: "v1.0.0"}).build(dir); err == nil {
		t.Error("built into a folder not named *.app (and removed it first)")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the folder is gone: %v", err)
	}
	if err := (macApp{Version: "v1.0.0", App: filepath.Join(dir, "missing")}).build(filepath.Join(dir, "x.app")); err == nil {
		t.Error("built a bundle without its app")
	}
}
