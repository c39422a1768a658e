package bubblewrap

import (
	"io/fs"
	"os"
	"slices"
	"testing"
	"time"
)

type fakeInfo struct {
	mode fs.FileMode
}

func (f fakeInfo) Name() string       { return "" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return nil }

func TestPlanTrust(t *testing.T) {
	host := map[string]fs.FileMode{
		"/etc/ssl/certs/ca-certificates.crt": 0o644,
		"/etc/ssl/certs":                     fs.ModeDir | 0o755,
		"/etc/ssl/corp.pem":                  0o644, // a link out of the visible tree
		"/home/ann/corp.pem":                 0o600,
		"/home/ann/certs":                    fs.ModeDir | 0o700,
		"/opt/certs":                         fs.ModeDir | 0o755,
		"/":                                  fs.ModeDir | 0o755,
		"/etc":                               fs.ModeDir | 0o755,
		"/opt":                               fs.ModeDir | 0o755,
		"/home":                              fs.ModeDir | 0o755,
		"/home/ann":                          fs.ModeDir | 0o700,
		"/home/ann/public":                   fs.ModeDir | 0o755, // below a folder others may not pass
	}
	links := map[string]string{"/etc/ssl/corp.pem": "/home/ann/corp.pem"}
	stat := func(p string) (fs.FileInfo, error) {
		if m, ok := host[p]; ok {
			return fakeInfo{m}, nil
		}
		return nil, os.ErrNotExist
	}
	resolve := func(p string) (string, error) {
		if l, ok := links[p]; ok {
			return l, nil
		}
		return p, nil
	}
	tests := []struct {
		name      string
		env       map[string]string
		hostImage bool
		worldOnly bool
		want      trustPlan
	}{
		{
			name: "nothing set: nothing carried", env: map[string]string{"HOME": "/home/ann"}, hostImage: true,
		},
		{
			name: "host image, the host's store: the same path", hostImage: true,
			env:  map[string]string{"SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt", "SSL_CERT_DIR": "/etc/ssl/certs"},
			want: trustPlan{env: []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "SSL_CERT_DIR=/etc/ssl/certs"}},
		},
		{
			name: "an imported image: the host's store is copied in", hostImage: false,
			env: map[string]string{"NODE_EXTRA_CA_CERTS": "/etc/ssl/certs/ca-certificates.crt"},
			want: trustPlan{
				env:   []string{"NODE_EXTRA_CA_CERTS=/etc/sandboxdesk/ca/node_extra_ca_certs/ca-certificates.crt"},
				files: []caMount{{host: "/etc/ssl/certs/ca-certificates.crt", inside: "/etc/sandboxdesk/ca/node_extra_ca_certs/ca-certificates.crt"}},
			},
		},
		{
			name: "a file in a private home, and a link out of the visible tree", hostImage: true,
			env: map[string]string{"GIT_SSL_CAINFO": "/home/ann/corp.pem", "REQUESTS_CA_BUNDLE": "/etc/ssl/corp.pem"},
			want: trustPlan{
				env: []string{"REQUESTS_CA_BUNDLE=/etc/sandboxdesk/ca/requests_ca_bundle/corp.pem", "GIT_SSL_CAINFO=/etc/sandboxdesk/ca/git_ssl_cainfo/corp.pem"},
				files: []caMount{
					{host: "/etc/ssl/corp.pem", inside: "/etc/sandboxdesk/ca/requests_ca_bundle/corp.pem"},
					{host: "/home/ann/corp.pem", inside: "/etc/sandboxdesk/ca/git_ssl_cainfo/corp.pem"},
				},
			},
		},
		{
			name: "a list of folders, one private, as root", hostImage: true, worldOnly: true,
			env: map[string]string{"SSL_CERT_DIR": "/opt/certs:/home/ann/certs:/home/ann/public:/etc/ssl/certs"},
			want: trustPlan{
				env:  []string{"SSL_CERT_DIR=/etc/sandboxdesk/ca/ssl_cert_dir/0:/etc/ssl/certs"},
				dirs: []caMount{{host: "/opt/certs", inside: "/etc/sandboxdesk/ca/ssl_cert_dir/0"}},
			},
		},
		{
			name: "missing, relative and unclean paths", hostImage: true,
			env:  map[string]string{"SSL_CERT_FILE": "/nonexistent.pem", "NODE_EXTRA_CA_CERTS": "corp.pem", "GIT_SSL_CAINFO": "/etc/ssl/../ssl/certs/ca-certificates.crt"},
			want: trustPlan{env: []string{"GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planTrust(func(k string) string { return tt.env[k] }, stat, resolve, tt.hostImage, tt.worldOnly)
			if !slices.Equal(got.env, tt.want.env) || !slices.Equal(got.files, tt.want.files) || !slices.Equal(got.dirs, tt.want.dirs) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
