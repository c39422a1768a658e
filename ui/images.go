package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// imagesDialog pulls images from a catalogue: its URL (Load stores it in
// the controller's settings and reads what it offers this machine) and a
// Pull button for each image. A pull goes on after the dialog closes; the
// main window's bar shows its progress.
type imagesDialog struct {
	u      *App
	url    *widget.Entry
	offers *fyne.Container
	msg    *widget.Label
	loadB  *widget.Button
	pulls  map[string]*widget.Button // by image name
	dlg    *keyedDialog
}

func (u *App) showImages() {
	if u.modal() {
		return
	}
	d := newImagesDialog(u)
	d.dlg.Show()
	d.load(false)
}

func newImagesDialog(u *App) *imagesDialog {
	d := &imagesDialog{u: u, url: widget.NewEntry(), offers: container.NewVBox(), msg: widget.NewLabel("")}
	d.url.SetPlaceHolder("https://…/catalogue.json")
	d.msg.Wrapping = fyne.TextWrapWord
	d.loadB = widget.NewButton("Load", func() { d.load(true) })
	form := container.NewVBox(
		widget.NewLabel("Image catalogue"),
		container.NewBorder(nil, nil, nil, d.loadB, d.url),
		d.msg,
		d.offers,
	)
	dlg := dialog.NewCustomWithoutButtons("Images", form, u.win)
	closeButton := widget.NewButton("Close", dlg.Hide)
	dlg.SetButtons([]fyne.CanvasObject{closeButton})
	dlg.Resize(fyne.NewSize(min(520, u.win.Canvas().Size().Width-20), 0))
	d.dlg = u.keyed(dlg, nil)
	d.dlg.onReturn, d.dlg.onEscape = func() { d.load(true) }, dlg.Hide
	return d
}

// load reads the catalogue and lists its images; set first stores the
// URL typed. UI goroutine.
func (d *imagesDialog) load(set bool) {
	ctx, cancel := d.u.withTimeout(context.Background(), timeout)
	defer cancel()
	var cat ipc.Catalogue
	var err error
	if set {
		err = d.u.client.Call(ctx, ipc.SetCatalogueRequest{URL: d.url.Text}, &cat)
	}
	if err == nil {
		err = d.u.client.Call(ctx, ipc.CatalogueRequest{}, &cat)
	}
	d.offers.RemoveAll()
	d.pulls = map[string]*widget.Button{}
	switch {
	case err != nil:
		d.msg.SetText(failure("Could not read the catalogue", err).line)
	case cat.URL == "":
		d.msg.SetText("No catalogue is set: type its URL and Load.")
	case len(cat.Images) == 0:
		d.msg.SetText("The catalogue offers no image for this computer.")
	default:
		d.msg.SetText(fmt.Sprintf("%d images for this computer:", len(cat.Images)))
	}
	if cat.URL != "" && !set {
		d.url.SetText(cat.URL)
	}
	for _, img := range cat.Images {
		about := fmt.Sprintf("%s (%s, %s)", img.Name, img.Backend, units.Size(img.Size))
		if img.Description != "" {
			about += ": " + img.Description
		}
		label := widget.NewLabel(about)
		label.Truncation = fyne.TextTruncateEllipsis
		pull := widget.NewButton("Pull", func() { d.pull(img) })
		d.pulls[img.Name] = pull
		d.offers.Add(container.NewBorder(nil, nil, nil, pull, label))
	}
}

// pull starts pulling img and closes the dialog: the download may take
// minutes, its progress is in the main window, its end in the status line.
func (d *imagesDialog) pull(img ipc.CatalogueImage) {
	d.dlg.Hide()
	u := d.u
	u.main.status.SetText("Pulling " + img.Name + "…")
	go func() {
		var got ipc.Image
		err := u.client.Call(context.Background(), ipc.PullImageRequest{Name: img.Name, Backend: img.Backend}, &got)
		u.do(func() {
			if err != nil {
				u.main.status.SetText(failure("Could not pull "+img.Name, err).line)
				return
			}
			u.main.status.SetText(fmt.Sprintf("Pulled %s: it is offered when you add a %s sandbox.", got.Name, got.Backend))
		})
	}()
}
