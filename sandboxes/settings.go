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
