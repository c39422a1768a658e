package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"sandboxdesk/ipc"
	"sandboxdesk/sandboxes"
	"sandboxdesk/units"
)

// pull asks the controller to pull an image and shows its progress on
// stderr as it goes: a line redrawn in place on a terminal, a line every
// so often otherwise (a log).
func pull(ctx context.Context, e *env, name, backend, catalogueURL string) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	stop := watchPull(ctx, sbx, name, e.Err)
	img, err := sbx.PullImage(ctx, name, backend, catalogueURL)
	stop(err == nil)
	if err != nil {
		return exitFor(err)
	}
	if e.json {
		return printJSON(e.Out, img)
	}
	fmt.Fprintf(e.Out, "pulled %s for %s (%s)\n", img.Name, img.Backend, img.Digest)
	return nil
}

// watchPull follows the controller's progress events for the image until
// stop is called, and ends the line it drew. After a pull that succeeded,
// stop waits a moment for its last tick: the events come on a connection
// of their own, which may trail the reply.
func watchPull(ctx context.Context, sbx *sandboxes.Client, name string, w io.Writer) (stop func(succeeded bool)) {
	ctx, cancel := context.WithCancel(ctx)
	events, err := sbx.Subscribe(ctx)
	if err != nil {
		cancel()
		return func(bool) {}
	}
	complete := make(chan struct{})
	var once sync.Once
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	done := make(chan struct{})
	drew := false
	go func() {
		defer close(done)
		var last time.Time
		for e := range events {
			if e.Kind != ipc.EventProgress || e.Image != name || e.Download == nil {
				continue
			}
			final := e.Download.Bytes == e.Download.Total
			if !tty && !final && time.Since(last) < 5*time.Second {
				continue
			}
			if final {
				once.Do(func() { close(complete) })
			}
			last = time.Now()
			if tty {
				fmt.Fprintf(w, "\r%s\033[K", progressLine(name, *e.Download))
				drew = true
			} else {
				fmt.Fprintln(w, progressLine(name, *e.Download))
			}
		}
	}()
	return func(succeeded bool) {
		if succeeded {
			select {
			case <-complete:
			case <-done:
			case <-time.After(2 * time.Second):
			}
		}
		cancel()
		<-done
		if drew {
			fmt.Fprintln(w)
		}
	}
}

// progressLine is one line of a pull's progress: a bar, the share, the
// bytes and the rate.
func progressLine(name string, d ipc.Download) string {
	const width = 24
	frac := 0.0
	if d.Total > 0 {
		frac = min(float64(d.Bytes)/float64(d.Total), 1)
	}
	full := int(frac * width)
	bar := strings.Repeat("#", full) + strings.Repeat(".", width-full)
	return fmt.Sprintf("pulling %s [%s] %3d%% %s of %s, %s/s", name, bar, int(frac*100),
		units.Size(d.Bytes), units.Size(d.Total), units.Size(d.BytesPerSec))
}

// showCatalogue sets the catalogue to url (when set) or shows it with
// what it offers.
func showCatalogue(ctx context.Context, e *env, set bool, url string) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	var cat ipc.Catalogue
	if set {
		cat, err = sbx.SetCatalogue(ctx, url)
	} else {
		cat, err = sbx.Catalogue(ctx)
	}
	if err != nil {
		return exitFor(err)
	}
	if e.json {
		return printJSON(e.Out, cat)
	}
	if set {
		if cat.URL == "" {
			fmt.Fprintln(e.Out, "no image catalogue is set")
		} else {
			fmt.Fprintf(e.Out, "image catalogue: %s\n", cat.URL)
		}
		return nil
	}
	if cat.URL == "" {
		fmt.Fprintln(e.Out, "no image catalogue is set: images catalogue URL sets one")
		return nil
	}
	fmt.Fprintf(e.Out, "image catalogue: %s\n", cat.URL)
	rows := [][]string{{"NAME", "BACKEND", "SIZE", "ABOUT"}}
	for _, img := range cat.Images {
		rows = append(rows, []string{img.Name, img.Backend, units.Size(img.Size).String(), img.Description})
	}
	return printTable(e.Out, rows)
}
