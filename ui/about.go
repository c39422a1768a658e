package ui

import (
	"net/url"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/version"
)

// The facts Settings → About shows beside the version.
const (
	homepage = "https://sandboxdesk.dev"
	licence  = "not chosen yet"
)

// about is Settings' About line: the version the build stamped (the one
// `sandboxdesk --version` prints), the homepage and the licence.
func about() fyne.CanvasObject {
	items := []fyne.CanvasObject{widget.NewLabel("sandboxdesk " + version.Version)}
	if u, err := url.Parse(homepage); err == nil {
		items = append(items, widget.NewHyperlink(homepage, u))
	}
	items = append(items, widget.NewLabel("Licence: "+licence))
	return container.NewVBox(items...)
}
