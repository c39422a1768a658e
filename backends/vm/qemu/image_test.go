//go:build linux

package qemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	imageOnce sync.Once
	imageDir  string
	imageErr  string
)

// testImages builds the tiny guest image once per test run from the
// current code (so a test never boots a stale agent) into a temporary
// folder, with the Debian packages it needs cached outside the tree. It
// skips, saying what is missing, where the tools are not there.
func testImages(t testing.TB) string {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the tiny guest image is built for amd64 only")
	}
	if _, err := findSystem("amd64"); err != nil {
		t.Skipf("%v (make deps)", err)
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "busybox"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is needed to build the guest image", tool)
		}
	}
	imageOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guest-images")
		if err != nil {
			imageErr = err.Error()
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		cmd := exec.Command("sh", "../../../packaging/guest/build.sh", "amd64", "tiny", filepath.Join(dir, "amd64-tiny"))
		cmd.Env = append(os.Environ(), "GUEST_DEBS="+filepath.Join(cache, "sandboxdesk", "guest", "debs"))
		if out, err := cmd.CombinedOutput(); err != nil {
			imageErr = "build the guest image: " + err.Error() + ": " + string(out)
			return
		}
		imageDir = dir
	})
	if imageErr != "" {
		t.Fatal(imageErr)
	}
	return imageDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if imageDir != "" {
		os.RemoveAll(imageDir)
	}
	os.Exit(code)
}
