package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sandboxdesk/plist"
)

const (
	// bundleID is the app's identity to macOS: its preferences, its
	// notifications, its entry in Login Items. The app calls itself by the
	// same ID (appID in the main package); a test holds the two together.
	bundleID = "dev.sandboxdesk.app"
	// minMacOS is the oldest macOS the app opens on: the vz backend uses
	// Virtualization.framework's macOS 13 features (virtio-fs shares
	// without a private API, the NAT device as it is used there).
	minMacOS = "13.0"
	// appExe, cliExe and serveExe are the programs in Contents/MacOS:
	// the app (the bundle's executable), the command line beside it,
	// which opens the app next to itself with no arguments, and the
	// controller without a window its serve becomes.
	appExe   = "sandboxdesk-app"
	cliExe   = "sandboxdesk"
	serveExe = "sandboxdesk-serve"
	// iconName is the .icns in Contents/Resources.
	iconName = "sandboxdesk.icns"
)

// infoPlist is the bundle's Info.plist for version (as git describe
// prints it).
func infoPlist(version string) ([]byte, error) {
	n := parseVersion(version)
	return plist.Encode(plist.Dict{
		{Key: "CFBundleDevelopmentRegion", Value: "en"},
		{Key: "CFBundleDisplayName", Value: "sandboxdesk"},
		{Key: "CFBundleExecutable", Value: appExe},
		{Key: "CFBundleIconFile", Value: iconName},
		{Key: "CFBundleIdentifier", Value: bundleID},
		{Key: "CFBundleInfoDictionaryVersion", Value: "6.0"},
		{Key: "CFBundleName", Value: "sandboxdesk"},
		{Key: "CFBundlePackageType", Value: "APPL"},
		{Key: "CFBundleShortVersionString", Value: n.short()},
		{Key: "CFBundleVersion", Value: n.short()},
		// the full version, between tags too, for a bug report
		{Key: "SandboxdeskVersion", Value: version},
		{Key: "LSApplicationCategoryType", Value: "public.app-category.developer-tools"},
		{Key: "LSMinimumSystemVersion", Value: minMacOS},
		// a Dock icon and a menu bar: the window must always be reachable
		{Key: "LSUIElement", Value: false},
		{Key: "NSHighResolutionCapable", Value: true},
		{Key: "NSSupportsAutomaticGraphicsSwitching", Value: true},
	})
}

// macApp is what goes into sandboxdesk.app.
type macApp struct {
	Version         string // as git describe prints it
	App, CLI, Serve string // the three programs, built for macOS
	Icon            string // the .icns
}

// build lays out the bundle at out (a folder named *.app, replaced if it
// is there): Contents/Info.plist and PkgInfo, the programs in
// Contents/MacOS, the icon in Contents/Resources. Signing comes after,
// on a Mac.
func (a macApp) build(out string) error {
	if filepath.Ext(out) != ".app" {
		return fmt.Errorf("build the app bundle: %s is not named *.app", out)
	}
	info, err := infoPlist(a.Version)
	if err != nil {
		return fmt.Errorf("build the app bundle: %w", err)
	}
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("build the app bundle: %w", err)
	}
	contents := filepath.Join(out, "Contents")
	for _, d := range []string{"MacOS", "Resources"} {
		if err := os.MkdirAll(filepath.Join(contents, d), 0o755); err != nil {
			return fmt.Errorf("build the app bundle: %w", err)
		}
	}
	files := []struct {
		src, dst string
		data     []byte
		mode     os.FileMode
	}{
		{dst: "Info.plist", data: info, mode: 0o644},
		{dst: "PkgInfo", data: []byte("APPL????"), mode: 0o644},
		{src: a.App, dst: filepath.Join("MacOS", appExe), mode: 0o755},
		{src: a.CLI, dst: filepath.Join("MacOS", cliExe), mode: 0o755},
		{src: a.Serve, dst: filepath.Join("MacOS", serveExe), mode: 0o755},
		{src: a.Icon, dst: filepath.Join("Resources", iconName), mode: 0o644},
	}
	for _, f := range files {
		dst := filepath.Join(contents, f.dst)
		if f.src != "" {
			err = copyFile(f.src, dst, f.mode)
		} else {
			err = os.WriteFile(dst, f.data, f.mode)
		}
		if err != nil {
			return fmt.Errorf("build the app bundle: %w", err)
		}
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) (err error) {
	if strings.TrimSpace(src) == "" {
		return errors.New("a file of the bundle was not named")
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(out, in)
	return err
}
