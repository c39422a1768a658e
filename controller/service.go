package controller

import (
	"context"
	"errors"
	"os"
	"sort"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/stream"
)

// Service answers ipc requests with a Controller. The socket server and
// the desktop's in-process client both go through it, so every request
// has exactly one handler.
type Service struct {
	C *Controller
	// Quit is called, once, when a client asks the controller to quit.
	Quit func()
}

var _ ipc.Handler = (*Service)(nil)

// Handle answers every request but exec and subscribe.
func (s *Service) Handle(ctx context.Context, req ipc.Request) (any, error) {
	c := s.C
	switch r := req.(type) {
	case ipc.CreateRequest:
		return c.Create(ctx, r)
	case ipc.ListRequest:
		return c.List(ctx, r.Prefix)
	case ipc.InspectRequest:
		return c.Inspect(ctx, r.Ref)
	case ipc.StopRequest:
		return c.Stop(ctx, r.Ref)
	case ipc.RemoveRequest:
		return s.remove(ctx, r)
	case ipc.DefaultsRequest:
		return c.Defaults(ctx)
	case ipc.CapacityRequest:
		return c.Capacity(ctx)
	case ipc.LimitsRequest:
		return c.Limits(ctx)
	case ipc.SetLimitsRequest:
		return c.SetLimits(ctx, r.AtOnce, r.Retained)
	case ipc.SetDefaultMemoryRequest:
		if err := c.SetDefaultMemory(ctx, r.MemoryMiB); err != nil {
			return nil, err
		}
		return c.Defaults(ctx)
	case ipc.ImagesRequest:
		return c.Images(ctx)
	case ipc.ImportImageRequest:
		return c.ImportImage(ctx, r.Name, r.File)
	case ipc.RemoveImageRequest:
		return c.RemoveImage(ctx, r.Name)
	case ipc.PullImageRequest:
		return c.PullImage(ctx, r)
	case ipc.CatalogueRequest:
		return c.Catalogue(ctx)
	case ipc.SetCatalogueRequest:
		return c.SetCatalogue(ctx, r.URL)
	case ipc.RangesRequest:
		return c.RangesOf(ctx, r.Backend)
	case ipc.StatusRequest:
		return ipc.Status{Pid: os.Getpid(), Root: c.root}, nil
	case ipc.QuitRequest:
		if s.Quit != nil {
			go s.Quit()
		}
		return ipc.Empty{}, nil
	}
	return nil, ipc.Errorf(ipc.ErrInvalid, "a %s request is not answered this way", req.Kind())
}

func (s *Service) remove(ctx context.Context, r ipc.RemoveRequest) (ipc.RemoveReply, error) {
	if r.All {
		if len(r.Names) > 0 {
			return ipc.RemoveReply{}, ipc.Errorf(ipc.ErrInvalid, "give names or --all, not both")
		}
		names, err := s.C.RemoveAll(ctx, r.Prefix)
		return ipc.RemoveReply{Removed: names}, err
	}
	if len(r.Names) == 0 {
		return ipc.RemoveReply{}, ipc.Errorf(ipc.ErrInvalid, "name a sandbox to remove, or use --all")
	}
	for _, n := range r.Names { // check every name before removing any
		if _, err := fullName(r.Prefix, n); err != nil {
			return ipc.RemoveReply{}, err
		}
	}
	rep := ipc.RemoveReply{Removed: []string{}}
	var errs []error
	for _, n := range r.Names {
		ok, err := s.C.Remove(ctx, ipc.Ref{Prefix: r.Prefix, Name: n})
		switch {
		case err != nil:
			errs = append(errs, err)
		case ok:
			rep.Removed = append(rep.Removed, n)
		default:
			rep.Missing = append(rep.Missing, n)
		}
	}
	return rep, errors.Join(errs...)
}

// Exec runs a command in a sandbox for a client.
func (s *Service) Exec(ctx context.Context, r ipc.ExecRequest, cio stream.IO) (int, error) {
	return s.C.Exec(ctx, r.Ref, backends.ExecRequest{Args: r.Args, Env: r.Env, Dir: r.Dir, TTY: r.TTY,
		Stdin: cio.Stdin, Stdout: cio.Stdout, Stderr: cio.Stderr, Signals: cio.Signals, Resizes: cio.Resizes, HandOver: cio.HandOver})
}

// Subscribe streams the controller's events.
func (s *Service) Subscribe() (<-chan ipc.Event, func()) { return s.C.Subscribe() }

// imageStore is a backend that imports images from tarballs.
type imageStore interface {
	Import(ctx context.Context, name, file string) (backends.Image, error)
	RemoveImage(name string) (bool, error)
}

// Images lists the images every backend offers.
func (c *Controller) Images(ctx context.Context) ([]ipc.Image, error) {
	out := []ipc.Image{}
	for _, name := range c.backendNames() {
		imgs, err := c.backends[name].Images(ctx)
		if err != nil {
			return nil, ipc.Errorf(ipc.ErrUnavailable, "list images of %s: %w", name, err)
		}
		for _, img := range imgs {
			out = append(out, ipc.Image{Backend: name, Name: img.Name, Digest: img.Digest, Description: img.Description})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Backend < out[j].Backend })
	return out, nil
}

// ImportImage imports a root file system tarball into the default
// backend's images.
func (c *Controller) ImportImage(ctx context.Context, name, file string) (ipc.Image, error) {
	st, ok := c.backends[c.defBack].(imageStore)
	if !ok {
		return ipc.Image{}, ipc.Errorf(ipc.ErrInvalid, "the %s backend does not import images", c.defBack)
	}
	if _, err := os.Stat(file); err != nil {
		return ipc.Image{}, ipc.Errorf(ipc.ErrInvalid, "import image: %v", err)
	}
	img, err := st.Import(ctx, name, file)
	if err != nil {
		return ipc.Image{}, ipc.Errorf(ipc.ErrInvalid, "%w", err)
	}
	return ipc.Image{Backend: c.defBack, Name: img.Name, Digest: img.Digest, Description: img.Description}, nil
}

// RemoveImage deletes an imported image from the default backend.
func (c *Controller) RemoveImage(ctx context.Context, name string) (ipc.RemoveReply, error) {
	st, ok := c.backends[c.defBack].(imageStore)
	if !ok {
		return ipc.RemoveReply{}, ipc.Errorf(ipc.ErrInvalid, "the %s backend has no imported images", c.defBack)
	}
	removed, err := st.RemoveImage(name)
	if err != nil {
		return ipc.RemoveReply{}, ipc.Errorf(ipc.ErrInvalid, "%w", err)
	}
	if removed {
		return ipc.RemoveReply{Removed: []string{name}}, nil
	}
	return ipc.RemoveReply{Removed: []string{}, Missing: []string{name}}, nil
}

// RangesOf reports the fixed ranges and the images of a backend ("" for
// the default one).
func (c *Controller) RangesOf(ctx context.Context, backend string) (ipc.Ranges, error) {
	if backend == "" {
		backend = c.defBack
	}
	b, ok := c.backends[backend]
	if !ok {
		return ipc.Ranges{}, ipc.Errorf(ipc.ErrInvalid, "unknown backend %q", backend)
	}
	caps := b.Capabilities()
	rng, err := rules.RangesFor(caps.Kind)
	if err != nil {
		return ipc.Ranges{}, err
	}
	imgs, err := b.Images(ctx)
	if err != nil {
		return ipc.Ranges{}, ipc.Errorf(ipc.ErrUnavailable, "list images: %w", err)
	}
	out := ipc.Ranges{Backend: backend, VM: caps.Kind == backends.KindVM,
		MemoryMiB: ipc.Range(rng.MemoryMiB), CPUs: ipc.Range(rng.CPUs), DiskMiB: ipc.Range(rng.DiskMiB),
		Images: []string{}, Backends: []string{c.defBack}}
	for _, img := range imgs {
		out.Images = append(out.Images, img.Name)
	}
	// the default first: what a create that names no image gets
	sort.SliceStable(out.Images, func(i, j int) bool { return out.Images[i] == caps.DefaultImage && out.Images[j] != caps.DefaultImage })
	for _, name := range c.backendNames() {
		if name != c.defBack {
			out.Backends = append(out.Backends, name)
		}
	}
	return out, nil
}
