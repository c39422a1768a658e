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
		catalogueURL := fs.String("catalogue", "", "pull: the catalogue's URL (default: the one set with `images catalogue URL` or in Settings)")
		backend := fs.String("backend", "", "pull: the backend the image is for, when the catalogue has it for several")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				args = []string{"list"}
			}
			var req ipc.Request
			switch {
			case args[0] == "list" && len(args) == 1:
				req = ipc.ImagesRequest{}
			case args[0] == "import" && len(args) == 3:
				file, err := filepath.Abs(args[2]) // the controller may run elsewhere
				if err != nil {
					return err
				}
				req = ipc.ImportImageRequest{Name: args[1], File: file}
			case args[0] == "remove" && len(args) == 2:
				req = ipc.RemoveImageRequest{Name: args[1]}
			case args[0] == "pull" && len(args) == 2:
				req = ipc.PullImageRequest{Name: args[1], Backend: *backend, Catalogue: *catalogueURL}
			case args[0] == "catalogue" && len(args) == 1:
				req = ipc.CatalogueRequest{}
			case args[0] == "catalogue" && len(args) == 2:
				url := args[1]
				if url == "none" {
					url = ""
				}
				req = ipc.SetCatalogueRequest{URL: url}
			default:
				return usagef("use: images [list] | images import NAME FILE | images pull NAME [--catalogue URL] | images catalogue [URL|none] | images remove NAME")
			}
			c, err := e.connect(ctx)
			if err != nil {
				return err
			}
			switch r := req.(type) {
			case ipc.ImagesRequest:
				var imgs []ipc.Image
				if err := c.Call(ctx, r, &imgs); err != nil {
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
			case ipc.ImportImageRequest:
				var img ipc.Image
				if err := c.Call(ctx, r, &img); err != nil {
					return exitFor(err)
				}
				if e.json {
					return printJSON(e.Out, img)
				}
				fmt.Fprintf(e.Out, "imported %s (%s)\n", img.Name, img.Digest)
				return nil
			case ipc.PullImageRequest:
				return pull(ctx, e, c, r)
			case ipc.CatalogueRequest, ipc.SetCatalogueRequest:
				return showCatalogue(ctx, e, c, r)
			default:
				var rep ipc.RemoveReply
				if err := c.Call(ctx, r, &rep); err != nil {
					return exitFor(err)
				}
				if e.json {
					return printJSON(e.Out, rep)
				}
				if len(rep.Removed) > 0 {
					fmt.Fprintf(e.Out, "removed image %s\n", args[1])
				} else {
					fmt.Fprintf(e.Out, "%s: no such image\n", args[1])
				}
				return nil
			}
		}
	},
}
