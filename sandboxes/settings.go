package sandboxes

import (
	"context"

	"sandboxdesk/ipc"
)

// The root's own settings and images: what every sandbox of the root,
// whatever its prefix, starts from and is admitted by.

// Images are the images each backend offers.
func (c *Client) Images(ctx context.Context) ([]ipc.Image, error) {
	var imgs []ipc.Image
	if err := c.c.Call(ctx, ipc.ImagesRequest{}, &imgs); err != nil {
		return nil, opError("list images", err)
	}
	return imgs, nil
}

// ImportImage imports a root filesystem tarball as an image of that name.
// file is read by the controller, on its host: give an absolute path.
func (c *Client) ImportImage(ctx context.Context, name, file string) (ipc.Image, error) {
	var img ipc.Image
	if err := c.c.Call(ctx, ipc.ImportImageRequest{Name: name, File: file}, &img); err != nil {
		return ipc.Image{}, opError("import image "+name, err)
	}
	return img, nil
}

// RemoveImage removes an image and reports whether there was one.
// Sandboxes started from it keep running from their own copy.
func (c *Client) RemoveImage(ctx context.Context, name string) (bool, error) {
	var rep ipc.RemoveReply
	if err := c.c.Call(ctx, ipc.RemoveImageRequest{Name: name}, &rep); err != nil {
		return false, opError("remove image "+name, err)
	}
	return len(rep.Removed) > 0, nil
}

// Limits are how many sandboxes this root runs at once and keeps, and
// why: the recommendation for this host or a setting.
func (c *Client) Limits(ctx context.Context) (ipc.Limits, error) {
	var lim ipc.Limits
	if err := c.c.Call(ctx, ipc.LimitsRequest{}, &lim); err != nil {
		return ipc.Limits{}, opError("read the limits", err)
	}
	return lim, nil
}

// SetLimits sets how many sandboxes run at once and keep a checkpoint;
// a nil limit follows the host's recommendation again.
func (c *Client) SetLimits(ctx context.Context, atOnce, retained *int) (ipc.Limits, error) {
	var lim ipc.Limits
	if err := c.c.Call(ctx, ipc.SetLimitsRequest{AtOnce: atOnce, Retained: retained}, &lim); err != nil {
		return ipc.Limits{}, opError("set the limits", err)
	}
	return lim, nil
}

// Defaults are what a sandbox that names no size would get if it started
// now, and the memory budget they come from.
func (c *Client) Defaults(ctx context.Context) (ipc.Defaults, error) {
	var d ipc.Defaults
	if err := c.c.Call(ctx, ipc.DefaultsRequest{}, &d); err != nil {
		return ipc.Defaults{}, opError("read the defaults", err)
	}
	return d, nil
}

// Capacity is the host as the controller measured it and how many
// standard sandboxes it recommends.
func (c *Client) Capacity(ctx context.Context) (ipc.Capacity, error) {
	var capa ipc.Capacity
	if err := c.c.Call(ctx, ipc.CapacityRequest{}, &capa); err != nil {
		return ipc.Capacity{}, opError("read the capacity", err)
	}
	return capa, nil
}

// Status says which process the controller is, and its root.
func (c *Client) Status(ctx context.Context) (ipc.Status, error) {
	var st ipc.Status
	if err := c.c.Call(ctx, ipc.StatusRequest{}, &st); err != nil {
		return ipc.Status{}, opError("ask the controller", err)
	}
	return st, nil
}

// Quit asks the controller to stop its sandboxes and exit. It returns
// once the controller has the request, not once it has stopped: the
// root's lock says that (package rootlock).
func (c *Client) Quit(ctx context.Context) error {
	if err := c.c.Call(ctx, ipc.QuitRequest{}, nil); err != nil {
		return opError("quit the controller", err)
	}
	return nil
}

// PullImage downloads the image called name for this machine from the
// catalogue at catalogueURL ("" for the one set in Settings), for backend
// ("" for any). The controller's EventProgress events with Image set to
// name (Subscribe) tell how far it is.
func (c *Client) PullImage(ctx context.Context, name, backend, catalogueURL string) (ipc.Image, error) {
	var img ipc.Image
	if err := c.c.Call(ctx, ipc.PullImageRequest{Name: name, Backend: backend, Catalogue: catalogueURL}, &img); err != nil {
		return ipc.Image{}, opError("pull image "+name, err)
	}
	return img, nil
}

// Catalogue is the image catalogue set for this root and what it offers.
func (c *Client) Catalogue(ctx context.Context) (ipc.Catalogue, error) {
	var cat ipc.Catalogue
	if err := c.c.Call(ctx, ipc.CatalogueRequest{}, &cat); err != nil {
		return ipc.Catalogue{}, opError("read the image catalogue", err)
	}
	return cat, nil
}

// SetCatalogue sets the image catalogue's URL; "" sets none.
func (c *Client) SetCatalogue(ctx context.Context, url string) (ipc.Catalogue, error) {
	var cat ipc.Catalogue
	if err := c.c.Call(ctx, ipc.SetCatalogueRequest{URL: url}, &cat); err != nil {
		return ipc.Catalogue{}, opError("set the image catalogue", err)
	}
	return cat, nil
}
