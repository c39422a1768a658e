package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"sandboxdesk/ipc"
)

var imagesCommand = command{
	summary: "list images, import a root file system tarball, pull one from a catalogue, or remove one",
	usage:   "[list] | import NAME FILE.tar[.gz|.xz] | pull NAME [--catalogue URL] [--backend B] | catalogue [URL|none] | remove NAME",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		catalogueURL := fs.String("catalogue", "", "pull: the catalogue's URL (default: the one set with `images catalogue URL` or in the app's Images dialog)")
		backend := fs.String("backend", "", "pull: the backend the image is for, when the catalogue has it for several")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				args = []string{"list"}
			}
			switch {
			case args[0] == "list" && len(args) == 1:
				return e.listImages(ctx)
			case args[0] == "import" && len(args) == 3:
				file, err := filepath.Abs(args[2]) // the controller may run elsewhere
				if err != nil {
					return err
				}
				return e.importImage(ctx, args[1], file)
			case args[0] == "remove" && len(args) == 2:
				return e.removeImage(ctx, args[1])
			case args[0] == "pull" && len(args) == 2:
				return pull(ctx, e, args[1], *backend, *catalogueURL)
			case args[0] == "catalogue" && len(args) == 1:
				return showCatalogue(ctx, e, false, "")
			case args[0] == "catalogue" && len(args) == 2:
				url := args[1]
				if url == "none" {
					url = ""
				}
				return showCatalogue(ctx, e, true, url)
			}
			return usagef("use: images [list] | images import NAME FILE | images pull NAME [--catalogue URL] | images catalogue [URL|none] | images remove NAME")
		}
	},
}

func (e *env) listImages(ctx context.Context) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	imgs, err := sbx.Images(ctx)
	if err != nil {
		return exitFor(err)
	}
	if e.json {
		return printJSON(e.Out, imgs)
	}
	rows := [][]string{{"NAME", "BACKEND", "DIGEST", "ABOUT"}}
	for _, img := range imgs {
		rows = append(rows, []string{img.Name, img.Backend, img.Digest, img.Description})
	}
	return printTable(e.Out, rows)
}

func (e *env) importImage(ctx context.Context, name, file string) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	img, err := sbx.ImportImage(ctx, name, file)
	if err != nil {
		return exitFor(err)
	}
	if e.json {
		return printJSON(e.Out, img)
	}
	fmt.Fprintf(e.Out, "imported %s (%s)\n", img.Name, img.Digest)
	return nil
}

func (e *env) removeImage(ctx context.Context, name string) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	removed, err := sbx.RemoveImage(ctx, name)
	if err != nil {
		return exitFor(err)
	}
	if e.json {
		rep := ipc.RemoveReply{Removed: []string{name}} // as the controller says it
		if !removed {
			rep = ipc.RemoveReply{Removed: []string{}, Missing: []string{name}}
		}
		return printJSON(e.Out, rep)
	}
	if removed {
		fmt.Fprintf(e.Out, "removed image %s\n", name)
	} else {
		fmt.Fprintf(e.Out, "%s: no such image\n", name)
	}
	return nil
}
