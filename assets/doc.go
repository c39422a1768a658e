// Package assets holds the icons and other files embedded in the binary, so
// the app needs nothing beside itself at run time.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

// The icons are PNGs that `make icons` draws from icon.svg (a test keeps
// them in step with it). A window or tray takes pixels, not SVG: given
// the SVG, Fyne draws the window's icon at 512 px and scales it down on
// the main thread before the window can show, some 50 ms of every start.
var (
	//go:embed icons/sandboxdesk-256.png
	iconPNG []byte
	//go:embed icons/sandboxdesk-64.png
	trayPNG []byte
)

// Icon is the app's icon: its windows' and its notifications'.
var Icon = fyne.NewStaticResource("sandboxdesk.png", iconPNG)

// TrayIcon is the icon in the system tray: hosts show it at 16 to 32 px
// and scale down what they are given.
var TrayIcon = fyne.NewStaticResource("sandboxdesk-tray.png", trayPNG)
