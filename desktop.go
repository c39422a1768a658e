package main

import (
	"context"
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"sandboxdesk/assets"
	"sandboxdesk/controller"
	"sandboxdesk/ui"
)

// appID identifies the app to the desktop (preferences, notifications).
const appID = "dev.sandboxdesk.app"

// runDesktop opens the window and returns when it is closed.
func runDesktop(rootFlag string) int {
	root, err := controller.ResolveRoot(rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		return 1
	}
	a := app.NewWithID(appID)
	a.SetIcon(assets.Icon)
	w := a.NewWindow("sandboxdesk")
	o := ui.NewOverview(controller.HostPlanner{Root: root})
	w.SetContent(o.Content())
	w.Resize(fyne.NewSize(560, 240))
	go o.Refresh(context.Background())
	w.ShowAndRun()
	return 0
}
