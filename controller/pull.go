package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/catalogue"
	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// settingCatalogue is the URL of the image catalogue set in Settings.
const settingCatalogue = "images.catalogue"

// imagePuller is a backend that keeps images pulled from a catalogue: it
// names the folder an image goes to, fetch fills it (whole, or not at
// all), and the backend checks what arrived as its own.
type imagePuller interface {
	Pull(ctx context.Context, img catalogue.Image, fetch func(dest string) error) (backends.Image, error)
}

// catalogueURL is the catalogue a request names, else the one set.
func (c *Controller) catalogueURL(ctx context.Context, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	url, ok, err := c.store.setting(ctx, settingCatalogue)
	if err != nil {
		return "", err
	}
	if !ok || url == "" {
		return "", ipc.Errorf(ipc.ErrInvalid, "no image catalogue is set: give its URL (--catalogue) or set one in Settings")
	}
	return url, nil
}

// Catalogue returns the catalogue set and the images it offers this
// machine for the backends here.
func (c *Controller) Catalogue(ctx context.Context) (ipc.Catalogue, error) {
	url, ok, err := c.store.setting(ctx, settingCatalogue)
	if err != nil {
		return ipc.Catalogue{}, err
	}
	out := ipc.Catalogue{URL: url, Images: []ipc.CatalogueImage{}}
	if !ok || url == "" {
		return out, nil
	}
	cat, err := c.pulls.Load(ctx, url)
	if err != nil {
		return out, ipc.Errorf(ipc.ErrUnavailable, "%w", err)
	}
	for _, img := range cat.Images {
		if _, ok := c.backends[img.Backend].(imagePuller); ok && img.Arch == runtime.GOARCH {
			out.Images = append(out.Images, ipc.CatalogueImage{Backend: img.Backend, Name: img.Name, Description: img.Description, Size: img.Size()})
		}
	}
	return out, nil
}

// SetCatalogue stores the catalogue's URL ("" for none), checked to be
// one a pull can use.
func (c *Controller) SetCatalogue(ctx context.Context, url string) (ipc.Catalogue, error) {
	url = strings.TrimSpace(url)
	if url != "" && !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return ipc.Catalogue{}, ipc.Errorf(ipc.ErrInvalid, "catalogue %q: give an http or https URL", url)
	}
	value := &url
	if url == "" {
		value = nil
	}
	if err := c.store.setSettings(ctx, map[string]*string{settingCatalogue: value}); err != nil {
		return ipc.Catalogue{}, err
	}
	c.Notice("", "image catalogue set")
	return ipc.Catalogue{URL: url, Images: []ipc.CatalogueImage{}}, nil
}

// PullImage downloads an image for this machine from a catalogue into
// its backend's images, publishing its progress as events. A pull cut
// short leaves what it downloaded for the next one to resume.
func (c *Controller) PullImage(ctx context.Context, r ipc.PullImageRequest) (ipc.Image, error) {
	url, err := c.catalogueURL(ctx, r.Catalogue)
	if err != nil {
		return ipc.Image{}, err
	}
	cat, err := c.pulls.Load(ctx, url)
	if err != nil {
		return ipc.Image{}, ipc.Errorf(ipc.ErrUnavailable, "%w", err)
	}
	img, ok := cat.Find(r.Name, r.Backend, runtime.GOARCH)
	if !ok {
		return ipc.Image{}, ipc.Errorf(ipc.ErrNotFound, "the catalogue offers no image %q for %s", r.Name, runtime.GOARCH)
	}
	p, ok := c.backends[img.Backend].(imagePuller)
	if !ok {
		return ipc.Image{}, ipc.Errorf(ipc.ErrUnavailable, "image %s is for the %s backend, which does not keep pulled images here", img.Name, img.Backend)
	}
	fetch := func(dest string) error {
		return c.pulls.Pull(ctx, img, dest, func(pr catalogue.Progress) { c.pullProgress(pr) })
	}
	got, err := p.Pull(ctx, img, fetch)
	if err != nil {
		kind := ipc.ErrUnavailable
		if errors.Is(err, catalogue.ErrChecksum) {
			kind = ipc.ErrInvalid
		}
		return ipc.Image{}, ipc.Errorf(kind, "%w", err)
	}
	c.Notice("", "images changed")
	return ipc.Image{Backend: img.Backend, Name: got.Name, Digest: got.Digest, Description: got.Description}, nil
}

// pullProgress publishes a tick of a pull: the fraction for a bar, the
// bytes and rate for a line, and a message that says both.
func (c *Controller) pullProgress(p catalogue.Progress) {
	e := ipc.Event{Time: c.clock.Now(), Kind: ipc.EventProgress, Image: p.Image,
		Download: &ipc.Download{Bytes: p.Bytes, Total: p.Total, BytesPerSec: p.BytesPerSec}}
	e.Progress = -1
	if p.Total > 0 {
		e.Progress = float64(p.Bytes) / float64(p.Total)
	}
	e.Message = fmt.Sprintf("pulling %s: %s of %s, %s/s", p.Image, units.Size(p.Bytes), units.Size(p.Total), units.Size(p.BytesPerSec))
	c.events.publish(e)
}
