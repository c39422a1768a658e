package daemon

import (
	"os"
	"path/filepath"
)

// GuestDirEnv overrides where the VM backend finds its guest images
// (`make guest-image` writes them to the user's cache folder).
const GuestDirEnv = "SANDBOXDESK_GUEST_DIR"

// GuestDir is the folder of guest images.
func GuestDir() string {
	if d := os.Getenv(GuestDirEnv); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "sandboxdesk", "guest")
}
