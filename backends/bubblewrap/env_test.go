//go:build linux

package bubblewrap

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandboxdesk/backends"
)

// TestSandboxEnvironment: a command's environment is who the sandbox
// user is, a PATH with the home's tool folders first, package managers
// pointed at the home, and of the controller's environment only the CA
// variables, pointing at files that exist inside.
func TestSandboxEnvironment(t *testing.T) {
	corp := filepath.Join(t.TempDir(), "corp-ca.pem") // private to the controller's user
	if err := os.WriteFile(corp, []byte("corp authority\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", corp)
	t.Setenv("SSL_CERT_DIR", "/etc/ssl/certs")
	t.Setenv("REQUESTS_CA_BUNDLE", "/nonexistent/bundle.pem")
	t.Setenv("NODE_EXTRA_CA_CERTS", "")
	t.Setenv("GIT_SSL_CAINFO", "")
	t.Setenv("SANDBOXDESK_TEST_OTHER", "controller only")
	r := newRig(t)
	s := r.spec("env")
	r.start(s, 256)
	_, out := r.sh(s.ID, "env")
	t.Logf("a command's environment:\n%s", out)
	env := strings.Split(strings.TrimSpace(out), "\n")
	get := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	wantPath := "/home/sandbox/.local/bin:/home/sandbox/go/bin:/home/sandbox/.cargo/bin:"
	if _, err := os.Stat("/usr/local/go/bin"); err == nil {
		wantPath += "/usr/local/go/bin:"
	}
	wantPath += "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for k, want := range map[string]string{
		"PATH": wantPath, "HOME": "/home/sandbox", "USER": "sandbox",
		"NPM_CONFIG_PREFIX": "/home/sandbox/.local", "PIP_BREAK_SYSTEM_PACKAGES": "1",
		"SSL_CERT_FILE": "/etc/sandboxdesk/ca/ssl_cert_file/corp-ca.pem", "SSL_CERT_DIR": "/etc/ssl/certs",
	} {
		if got := get(k); got != want {
			t.Errorf("%s=%q, want %q", k, got, want)
		}
	}
	allowed := []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "PWD", "SHLVL", "_",
		"NPM_CONFIG_PREFIX", "PIP_BREAK_SYSTEM_PACKAGES", "SSL_CERT_FILE", "SSL_CERT_DIR"}
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(allowed, k) {
			t.Errorf("a command gets %q", kv)
		}
	}
	if code, out := r.sh(s.ID, `cat "$SSL_CERT_FILE"; ls "$SSL_CERT_DIR" | grep -c .`); code != 0 || !strings.HasPrefix(out, "corp authority\n") {
		t.Errorf("the CA file inside: %d %q", code, out)
	}
	if code, out := r.sh(s.ID, "echo x > $SSL_CERT_FILE"); code == 0 {
		t.Errorf("the CA file is writable inside: %q", out)
	}
}

// TestExecUsesTheRequestsPath: a command is looked up with the PATH the
// request gives it.
func TestExecUsesTheRequestsPath(t *testing.T) {
	r := newRig(t)
	s := r.spec("path")
	r.start(s, 256)
	r.sh(s.ID, `mkdir -p /workspace/tools && printf '#!/bin/sh\necho mine\n' > /workspace/tools/mytool && chmod +x /workspace/tools/mytool`)
	var out bytes.Buffer
	code, err := r.b.Exec(t.Context(), s.ID, backends.ExecRequest{Args: []string{"mytool"}, Env: []string{"PATH=/workspace/tools:/usr/bin:/bin"}, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 || out.String() != "mine\n" {
		t.Errorf("exec with PATH=/workspace/tools: %d, %v, %q", code, err, out.String())
	}
	if _, err := os.Stat("/usr/local/go/bin/go"); err == nil {
		if code, out := r.sh(s.ID, "go version"); code != 0 || !strings.HasPrefix(out, "go version") {
			t.Errorf("go from /usr/local/go/bin: %d %q", code, out)
		}
	}
}

// TestInstallsGoToTheHome: "pip install" and "npm -g install", without
// --user or sudo, install into the home (the system folders are
// read-only) and their commands are on PATH.
func TestInstallsGoToTheHome(t *testing.T) {
	r := newRig(t)
	s := r.spec("installs")
	r.start(s, 512)
	// local packages: no index is needed
	r.sh(s.ID, `mkdir -p /workspace/pypkg /workspace/npmpkg
cat > /workspace/pypkg/setup.py <<'PY'
from setuptools import setup
setup(name="sdtool", version="1.0", py_modules=["sdtool"], entry_points={"console_scripts": ["sdtool=sdtool:main"]})
PY
echo 'def main(): print("sdtool ran")' > /workspace/pypkg/sdtool.py
echo '{"name": "sdnpm", "version": "1.0.0", "bin": {"sdnpm": "cli.js"}}' > /workspace/npmpkg/package.json
printf '#!/usr/bin/env node\nconsole.log("sdnpm ran")\n' > /workspace/npmpkg/cli.js`)
	tried := 0
	if code, _ := r.sh(s.ID, "python3 -m pip --version && python3 -c 'import setuptools'"); code == 0 {
		tried++
		if code, out := r.sh(s.ID, "cd /workspace && python3 -m pip install -q ./pypkg >/dev/null 2>&1; sdtool && command -v sdtool"); code != 0 || out != "sdtool ran\n/home/sandbox/.local/bin/sdtool\n" {
			t.Errorf("pip install ./pypkg: %d %q", code, out)
		}
	} else {
		t.Log("pip or setuptools is not installed in the sandbox: pip not tried")
	}
	if code, _ := r.sh(s.ID, "command -v npm"); code == 0 {
		tried++
		if code, out := r.sh(s.ID, "cd /workspace && npm -g install --offline --no-audit --no-fund ./npmpkg >/dev/null 2>&1; sdnpm && command -v sdnpm"); code != 0 || out != "sdnpm ran\n/home/sandbox/.local/bin/sdnpm\n" {
			_, log := r.sh(s.ID, "cat ~/.npm/_logs/*.log | tail -20")
			t.Errorf("npm -g install ./npmpkg: %d %q\n%s", code, out, log)
		}
	} else {
		t.Log("npm is not installed in the sandbox: npm not tried")
	}
	if tried == 0 {
		t.Skip("neither pip nor npm is installed in the sandbox")
	}
}

// TestImportedImageGetsTheCAFiles: an imported image has its own /etc/ssl,
// so the controller's CA files reach it as copies and its CA folders as
// read-only binds, at the paths its variables name.
func TestImportedImageGetsTheCAFiles(t *testing.T) {
	busybox, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Skip("busybox-static is not installed (apt-get install busybox-static): no root file system to import")
	}
	// a folder everyone may read, as a root controller requires: the
	// test's own folders opened up (TMPDIR itself is left as it is)
	base := t.TempDir()
	certs := filepath.Join(base, "certs")
	os.Mkdir(certs, 0o755)
	os.WriteFile(filepath.Join(certs, "corp.pem"), []byte("corp folder authority\n"), 0o644)
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	bundle := filepath.Join(t.TempDir(), "bundle.pem")
	os.WriteFile(bundle, []byte("corp bundle\n"), 0o600)
	t.Setenv("NODE_EXTRA_CA_CERTS", bundle)
	t.Setenv("SSL_CERT_DIR", certs)
	for _, v := range []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO"} {
		t.Setenv(v, "")
	}
	r := newRig(t)
	entries := []entry{{name: "bin/", typ: tar.TypeDir}, {name: "etc/", typ: tar.TypeDir}, {name: "bin/busybox", typ: tar.TypeReg, body: string(busybox)}}
	for _, applet := range []string{"sh", "cat", "env"} {
		entries = append(entries, entry{name: "bin/" + applet, typ: tar.TypeSymlink, link: "busybox"})
	}
	tarball := filepath.Join(t.TempDir(), "cabox.tar.gz")
	writeTarball(t, tarball, true, entries)
	img, err := r.b.Import(t.Context(), "cabox", tarball)
	if err != nil {
		t.Fatal(err)
	}
	s := r.spec("cabox")
	s.Image = img
	r.start(s, 128)
	code, out := r.sh(s.ID, `echo "$NODE_EXTRA_CA_CERTS $SSL_CERT_DIR"; cat "$NODE_EXTRA_CA_CERTS" "$SSL_CERT_DIR/corp.pem"`)
	want := "/etc/sandboxdesk/ca/node_extra_ca_certs/bundle.pem /etc/sandboxdesk/ca/ssl_cert_dir/0\ncorp bundle\ncorp folder authority\n"
	if code != 0 || out != want {
		t.Errorf("the CA files in an imported image: %d %q, want %q", code, out, want)
	}
}
