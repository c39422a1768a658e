package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsnotify/fsnotify"

	"sandboxdesk/controller"
)

// watchImages tells the controller's clients when an images folder
// changes (an import, a removal, a tarball unpacked by hand, a guest
// image built or pulled), so a new image appears in the Add dialog
// without a restart. Beside the root's own images, this platform's
// backends may keep theirs elsewhere (guestImageDirs).
func watchImages(ctx context.Context, c *controller.Controller) error {
	dirs := append([]string{filepath.Join(c.Root(), "images")}, guestImageDirs()...)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o711); err != nil {
			w.Close()
			return err
		}
		w.Add(dir)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				w.Add(filepath.Join(dir, e.Name())) // each image's "current" lives one level down
			}
		}
	}
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
				top := slices.Contains(dirs, filepath.Dir(ev.Name))
				// a hidden folder is a pull under way: its end is a rename
				// into view, news then
				if top && strings.HasPrefix(filepath.Base(ev.Name), ".") {
					continue
				}
				if top && ev.Has(fsnotify.Create) {
					w.Add(ev.Name)
				}
				if filepath.Base(ev.Name) == "current" || filepath.Base(ev.Name) == "manifest.json" || top {
					c.Notice("", "images changed")
				}
			case <-w.Errors:
			}
		}
	}()
	return nil
}
