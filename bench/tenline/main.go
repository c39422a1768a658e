// tenline is the ten-line Fyne app make bench compares the app with.
package main

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	w := app.New().NewWindow("tenline")
	w.SetContent(widget.NewLabel("hello"))
	w.ShowAndRun()
}
