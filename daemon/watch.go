package daemon

import (
	"context"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"

	"sandboxdesk/controller"
)

// watchImages tells the controller's clients when the images folder
// changes (an import, a removal, a tarball unpacked by hand), so a new
// image appears in the Add dialog without a restart.
func watchImages(ctx context.Context, c *controller.Controller) error {
	dir := filepath.Join(c.Root(), "images")
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	add := func(d string) {
		w.Add(d)
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() && d == dir {
				w.Add(filepath.Join(d, e.Name())) // each image's "current" lives one level down
			}
		}
	}
	add(dir)
	go func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Dir(ev.Name) == dir && ev.Has(fsnotify.Create) {
					w.Add(ev.Name)
				}
				if filepath.Base(ev.Name) == "current" || filepath.Dir(ev.Name) == dir {
					c.Notice("", "images changed")
				}
			case <-w.Errors:
			}
		}
	}()
	return nil
}
