package wsl

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// User is the account commands run as inside a distro. It is not root:
// root in a WSL distro can mount any Windows drive again (drvfs), which
// would undo the workspace being the only Windows folder it sees.
const User = "sandbox"

const userUID = 1000

// wslConf is the distro's /etc/wsl.conf: no Windows drive mounted but the
// workspace (through fstab), no Windows programs run from inside, no
// Windows PATH, and commands as the sandbox user by default.
func wslConf(hostname string) string {
	return "# written by sandboxdesk: a sandbox sees only its workspace of the Windows files\n" +
		"[automount]\nenabled = false\nmountFsTab = true\n\n" +
		"[interop]\nenabled = false\nappendWindowsPath = false\n\n" +
		"[network]\nhostname = " + hostname + "\ngenerateHosts = true\n\n" +
		"[user]\ndefault = " + User + "\n"
}

// fstabLine mounts the Windows folder workspace at /workspace. drvfs
// takes forward slashes, and fstab's fields are split on blanks, so a
// blank (a user name with a space) is written as \040.
func fstabLine(workspace string) string {
	src := strings.ReplaceAll(workspace, `\`, "/")
	r := strings.NewReplacer(" ", `\040`, "\t", `\011`, "\n", `\012`)
	return fmt.Sprintf("%s /workspace drvfs metadata,uid=%d,gid=%d 0 0\n", r.Replace(src), userUID, userUID)
}

// hostname is what a sandbox's full name becomes as a host name.
func hostname(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	h := strings.Trim(b.String(), "-")
	if len(h) > 63 {
		h = h[:63]
	}
	if h == "" {
		h = "sandbox"
	}
	return h
}

// prepareRootfs copies the image's tarball to w with the files that make
// it a sandbox: wsl.conf, fstab, the sandbox user, its home and the
// /workspace mount point. The image's own wsl.conf and fstab are dropped:
// an image must not decide what of Windows its sandboxes see.
func prepareRootfs(w io.Writer, r io.Reader, name, workspace string) error {
	tr, tw := tar.NewReader(r), tar.NewWriter(w)
	added := map[string][]byte{
		"etc/wsl.conf": []byte(wslConf(hostname(name))),
		"etc/fstab":    []byte(fstabLine(workspace)),
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read image tarball: %w", err)
		}
		clean := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		if _, ours := added[clean]; ours {
			continue
		}
		if clean == "etc/passwd" || clean == "etc/group" {
			if h.Typeflag != tar.TypeReg || h.Size > 1<<20 {
				return fmt.Errorf("image tarball: /%s is not a small regular file", clean)
			}
			body, err := io.ReadAll(tr)
			if err != nil {
				return fmt.Errorf("read image tarball: %w", err)
			}
			if added[clean], err = withAccount(body, clean == "etc/passwd"); err != nil {
				return err
			}
			continue
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write rootfs: %w", err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return fmt.Errorf("write rootfs: %w", err)
		}
	}
	for name, base := range map[string]string{"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n", "etc/group": "root:x:0:\n"} {
		if _, ok := added[name]; !ok {
			added[name], _ = withAccount([]byte(base), name == "etc/passwd")
		}
	}
	now := time.Unix(0, 0)
	for _, dir := range []string{"workspace", "home/" + User} {
		uid := 0
		if dir != "workspace" {
			uid = userUID
		}
		h := &tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, Uid: uid, Gid: uid, ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write rootfs: %w", err)
		}
	}
	for _, name := range []string{"etc/fstab", "etc/group", "etc/passwd", "etc/wsl.conf"} {
		body := added[name]
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write rootfs: %w", err)
		}
		if _, err := tw.Write(body); err != nil {
			return fmt.Errorf("write rootfs: %w", err)
		}
	}
	return tw.Close()
}

// withAccount adds the sandbox user (or its group) to a passwd (group)
// file that lacks it.
func withAccount(body []byte, passwd bool) ([]byte, error) {
	for _, line := range bytes.Split(body, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte(User+":")) {
			continue
		}
		// an image's own sandbox account must be the unprivileged one
		// the workspace mount is made for, never root under another name
		f := strings.Split(string(line), ":")
		if len(f) < 4 || f[2] != strconv.Itoa(userUID) || (passwd && f[3] != strconv.Itoa(userUID)) {
			return nil, fmt.Errorf("image tarball: its %s account is not uid and gid %d", User, userUID)
		}
		return body, nil
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	if passwd {
		return append(body, fmt.Sprintf("%s:x:%d:%d::/home/%s:/bin/sh\n", User, userUID, userUID, User)...), nil
	}
	return append(body, fmt.Sprintf("%s:x:%d:\n", User, userUID)...), nil
}
