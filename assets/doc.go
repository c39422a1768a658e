// Package assets holds the icons and other files embedded in the binary, so
// the app needs nothing beside itself at run time.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.svg
var iconSVG []byte

// Icon is the app's icon: window, tray and desktop entry.
var Icon = fyne.NewStaticResource("sandboxdesk.svg", iconSVG)
