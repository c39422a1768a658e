// Command bundle lays out what the macOS and Windows packages carry,
// from what the build made: sandboxdesk.app with its Info.plist, and the
// Windows programs' resources (icon, manifest, version information).
// The Makefile's package-darwin and package-windows run it; signing, the
// installer and the disk image are their platform tools' work.
//
//	bundle macos -version V -app APP -cli CLI -serve SERVE -icon ICNS -out sandboxdesk.app
//	bundle winres -version V -file NAME.exe -description TEXT -icon ICO -out NAME.rc
//	bundle winversion -version V
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("say macos, winres or winversion")
	}
	fs := flag.NewFlagSet("bundle "+args[0], flag.ContinueOnError)
	version := fs.String("version", "", "the version, as git describe prints it")
	out := fs.String("out", "", "what to write")
	icon := fs.String("icon", "", "the icon (.icns for macos, .ico for winres)")
	switch args[0] {
	case "macos":
		app := fs.String("app", "", "the desktop app built for macOS")
		cli := fs.String("cli", "", "the command line built for macOS")
		serve := fs.String("serve", "", "the controller without a window built for macOS")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return macApp{Version: *version, App: *app, CLI: *cli, Serve: *serve, Icon: *icon}.build(*out)
	case "winres":
		file := fs.String("file", "", "the program's file name")
		desc := fs.String("description", "", "what Task Manager calls the program")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if !strings.HasSuffix(*out, ".rc") {
			return fmt.Errorf("winres: -out %q is not a .rc file", *out)
		}
		// absolute: windres looks for a relative name in its own folder
		man, err := filepath.Abs(strings.TrimSuffix(*out, ".rc") + ".manifest")
		if err != nil {
			return fmt.Errorf("winres: %w", err)
		}
		ico, err := filepath.Abs(*icon)
		if err != nil {
			return fmt.Errorf("winres: %w", err)
		}
		w := winExe{Version: *version, File: *file, Description: *desc, Icon: ico, Manifest: man}
		if err := os.WriteFile(man, []byte(manifest), 0o644); err != nil {
			return fmt.Errorf("winres: %w", err)
		}
		if err := os.WriteFile(*out, []byte(w.resourceScript()), 0o644); err != nil {
			return fmt.Errorf("winres: %w", err)
		}
		return nil
	case "winversion":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		fmt.Fprintln(stdout, parseVersion(*version).windows("."))
		return nil
	}
	return fmt.Errorf("%q: say macos, winres or winversion", args[0])
}
