package bubblewrap

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// caVars are the controller's variables that name a trust store (a
// network that intercepts TLS adds its own authority there). They are the
// only variables of the controller's environment that reach a sandbox.
var caVars = []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO"}

// caDir is where the files and folders they name appear inside when the
// sandbox does not already see them at the same path.
const caDir = "/etc/sandboxdesk/ca"

// hostTrustDirs are the host folders the host image shows as they are.
var hostTrustDirs = []string{"/usr/", "/etc/ssl/", "/etc/ca-certificates/"}

// caMount is a host file or folder and where the sandbox sees it.
type caMount struct{ host, inside string }

// trustPlan is how the controller's CA variables reach a sandbox: the
// variables as the sandbox sees them, the files whose content is copied
// in read-only (the controller reads them, so a file only it may read
// still arrives), and the folders bound read-only.
type trustPlan struct {
	env   []string
	files []caMount
	dirs  []caMount
}

// planTrust reads the controller's CA variables through getenv and the
// host through stat and resolve (filepath.EvalSymlinks). hostImage says
// whether the sandbox sees the host's /usr and trust folders; worldOnly
// keeps out folders the sandbox's host user may not read (the controller
// is root and the sandbox another user). A variable naming nothing, or
// a relative path, is left out.
func planTrust(getenv func(string) string, stat func(string) (fs.FileInfo, error), resolve func(string) (string, error), hostImage, worldOnly bool) trustPlan {
	var p trustPlan
	visible := func(path string) bool {
		real, err := resolve(path)
		if !hostImage || err != nil {
			return false
		}
		for _, d := range hostTrustDirs {
			if strings.HasPrefix(path, d) && strings.HasPrefix(real, d) {
				return true
			}
		}
		return false
	}
	for _, v := range caVars {
		var inside []string
		paths := []string{getenv(v)}
		if v == "SSL_CERT_DIR" {
			// OpenSSL reads it as a list of folders
			paths = filepath.SplitList(paths[0])
		}
		for i, path := range paths {
			if !filepath.IsAbs(path) {
				continue
			}
			path = filepath.Clean(path)
			fi, err := stat(path)
			switch {
			case err != nil:
			case visible(path):
				inside = append(inside, path)
			case fi.Mode().IsRegular():
				m := caMount{host: path, inside: caDir + "/" + strings.ToLower(v) + "/" + filepath.Base(path)}
				p.files = append(p.files, m)
				inside = append(inside, m.inside)
			case fi.IsDir() && (!worldOnly || everyoneReads(path, stat)):
				m := caMount{host: path, inside: caDir + "/" + strings.ToLower(v) + "/" + strconv.Itoa(i)}
				p.dirs = append(p.dirs, m)
				inside = append(inside, m.inside)
			}
		}
		if len(inside) > 0 {
			p.env = append(p.env, v+"="+strings.Join(inside, ":"))
		}
	}
	return p
}

// everyoneReads says whether any user may list dir and pass through every
// folder above it, as bwrap must when it runs as the sandbox's user.
func everyoneReads(dir string, stat func(string) (fs.FileInfo, error)) bool {
	need := fs.FileMode(0o005)
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := stat(p)
		if err != nil || fi.Mode().Perm()&need != need {
			return false
		}
		if p == "/" {
			return true
		}
		need = 0o001
	}
}
