package wsl

import (
	"archive/tar"
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestCommandLines(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"list", listArgs(), []string{"--list", "--verbose"}},
		{"import", importArgs("sandboxdesk-1a2b3c4d-sb-1", `C:\Users\Zoë Doe\AppData\Local\sandboxdesk\sandboxes\sb-1\distro`, `C:\x\rootfs.tar`),
			[]string{"--import", "sandboxdesk-1a2b3c4d-sb-1", `C:\Users\Zoë Doe\AppData\Local\sandboxdesk\sandboxes\sb-1\distro`, `C:\x\rootfs.tar`, "--version", "2"}},
		{"exec", execArgs("d", "sandbox", "", []string{"sh", "-c", "echo $HOME; ls"}),
			[]string{"-d", "d", "-u", "sandbox", "--cd", "/workspace", "--exec", "sh", "-c", "echo $HOME; ls"}},
		{"exec in a folder", execArgs("d", "sandbox", "/tmp", []string{"ls"}),
			[]string{"-d", "d", "-u", "sandbox", "--cd", "/tmp", "--exec", "ls"}},
		{"hold", holdArgs("d"), []string{"-d", "d", "-u", "root", "--cd", "/", "--exec", "/bin/sleep", "2147483647"}},
		{"ask to end", askEndArgs("d"), []string{"-d", "d", "-u", "root", "--cd", "/", "--exec", "/bin/kill", "-s", "TERM", "-1"}},
		{"terminate", terminateArgs("d"), []string{"--terminate", "d"}},
		{"unregister", unregisterArgs("d"), []string{"--unregister", "d"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestDistroNames(t *testing.T) {
	a, _ := distroName(`C:\Users\Zoë\AppData\Local\sandboxdesk`, "sb-0123456789abcdef")
	b, _ := distroName(`C:\Users\zoë\appdata\local\sandboxdesk\`, "sb-0123456789abcdef")
	c, _ := distroName(`D:\other root`, "sb-0123456789abcdef")
	if a != b {
		t.Errorf("one root (case and a trailing separator apart) gave %s and %s", a, b)
	}
	if a == c {
		t.Errorf("two roots share the name %s", a)
	}
	if !strings.HasPrefix(a, "sandboxdesk-") || len(a) > 64 || !validDistroName(a) {
		t.Errorf("name %q is not a valid WSL distro name of ours", a)
	}
	if id, ok := idOf(`C:\Users\Zoë\AppData\Local\sandboxdesk`, a); !ok || id != "sb-0123456789abcdef" {
		t.Errorf("idOf(%s) = %q, %v", a, id, ok)
	}
	for _, other := range []string{c, "Ubuntu", "sandboxdesk-", rootPrefix(`C:\Users\Zoë\AppData\Local\sandboxdesk`)} {
		if id, ok := idOf(`C:\Users\Zoë\AppData\Local\sandboxdesk`, other); ok {
			t.Errorf("idOf(%s) claimed %q for this root", other, id)
		}
	}
	for _, bad := range []string{"", "a b", "x/y", "é", strings.Repeat("x", 60)} {
		if _, err := distroName("r", bad); err == nil {
			t.Errorf("id %q was accepted", bad)
		}
	}
}

func TestWSLEnv(t *testing.T) {
	base := []string{"PATH=C:\\Windows", "WSLENV=USERPROFILE/p", "SECRET=x"}
	got, err := wslEnv(base, []string{"LANG=C.UTF-8", "A=1", "A=2"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=C:\\Windows", "SECRET=x", "A=2", "LANG=C.UTF-8", "WSLENV=A/u:LANG/u"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// the user's own WSLENV never carries a host variable into a sandbox
	if got, _ := wslEnv(base, nil); reflect.DeepEqual(got, base) || strings.Contains(strings.Join(got, " "), "WSLENV") {
		t.Errorf("no env: got %q", got)
	}
	for _, bad := range []string{"NOEQUALS", "1A=x", "A-B=x", "=x", "A:B=x"} {
		if _, err := wslEnv(nil, []string{bad}); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestFstabLine(t *testing.T) {
	tests := []struct{ workspace, want string }{
		{`C:\Users\Zoë Doe\AppData\Local\sandboxdesk\workspaces\dev`,
			`C:/Users/Zoë\040Doe/AppData/Local/sandboxdesk/workspaces/dev /workspace drvfs metadata,uid=1000,gid=1000 0 0` + "\n"},
		{`D:\w`, "D:/w /workspace drvfs metadata,uid=1000,gid=1000 0 0\n"},
		{"/tmp/a\tb", `/tmp/a\011b /workspace drvfs metadata,uid=1000,gid=1000 0 0` + "\n"},
	}
	for _, tt := range tests {
		if got := fstabLine(tt.workspace); got != tt.want {
			t.Errorf("fstabLine(%q) = %q, want %q", tt.workspace, got, tt.want)
		}
	}
}

func TestHostname(t *testing.T) {
	for in, want := range map[string]string{"dev": "dev", "CI-Fleet-build.1": "ci-fleet-build-1", "ünï": "n", "": "sandbox", "--": "sandbox"} {
		if got := hostname(in); got != want {
			t.Errorf("hostname(%q) = %q, want %q", in, got, want)
		}
	}
}

// tarball makes an image tarball of name -> content (a trailing / makes
// a folder).
func tarball(t *testing.T, files map[string]string, order ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range order {
		body := files[name]
		h := &tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(body))}
		if strings.HasSuffix(name, "/") {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	return buf.Bytes()
}

func readTar(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[h.Name]; dup {
			t.Errorf("%s is in the rootfs twice", h.Name)
		}
		body, _ := io.ReadAll(tr)
		out[h.Name] = string(body)
	}
}

func TestPrepareRootfs(t *testing.T) {
	image := tarball(t, map[string]string{
		"./etc/":         "",
		"./etc/passwd":   "root:x:0:0:root:/root:/bin/sh\n",
		"./etc/group":    "root:x:0:",
		"./etc/wsl.conf": "[automount]\nenabled = true\n[interop]\nenabled = true\n",
		"etc/fstab":      "C:/ /mnt/c drvfs defaults 0 0\n",
		"./bin/":         "",
		"./bin/sh":       "#!",
	}, "./etc/", "./etc/passwd", "./etc/group", "./etc/wsl.conf", "etc/fstab", "./bin/", "./bin/sh")
	var out bytes.Buffer
	if err := prepareRootfs(&out, bytes.NewReader(image), "CI dev", `C:\Users\Zoë Doe\ws`); err != nil {
		t.Fatal(err)
	}
	got := readTar(t, out.Bytes())
	if got["./bin/sh"] != "#!" {
		t.Errorf("the image's own files were not copied: %q", got)
	}
	if _, kept := got["./etc/wsl.conf"]; kept {
		t.Error("the image's own wsl.conf was kept")
	}
	want := map[string][]string{
		"etc/wsl.conf": {"[automount]\nenabled = false\nmountFsTab = true", "[interop]\nenabled = false", "hostname = ci-dev", "default = sandbox"},
		"etc/fstab":    {`C:/Users/Zoë\040Doe/ws /workspace drvfs`},
		"etc/passwd":   {"root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000::/home/sandbox:/bin/sh\n"},
		"etc/group":    {"root:x:0:\nsandbox:x:1000:\n"},
	}
	for name, parts := range want {
		for _, p := range parts {
			if !strings.Contains(got[name], p) {
				t.Errorf("%s = %q, lacks %q", name, got[name], p)
			}
		}
	}
	if strings.Contains(got["etc/fstab"], "/mnt/c") {
		t.Errorf("the image's fstab mounts a Windows drive: %q", got["etc/fstab"])
	}
	for _, dir := range []string{"workspace/", "home/sandbox/"} {
		if _, ok := got[dir]; !ok {
			t.Errorf("no %s in the rootfs", dir)
		}
	}
}

func TestPrepareRootfsRefusesARootSandboxUser(t *testing.T) {
	for _, passwd := range []string{"sandbox:x:0:0::/root:/bin/sh\n", "sandbox:x:1000:0::/h:/bin/sh\n", "sandbox::\n"} {
		image := tarball(t, map[string]string{"etc/passwd": passwd}, "etc/passwd")
		if err := prepareRootfs(io.Discard, bytes.NewReader(image), "dev", `C:\w`); err == nil {
			t.Errorf("an image whose passwd says %q was taken", passwd)
		}
	}
}
