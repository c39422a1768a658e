package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
)

// PipeName is the named pipe that stands for a controller's socket path
// on Windows, which has no unix sockets the app can rely on. It is
// derived from the root, so the CLI finds it the way it finds the
// socket, and it is short whatever the root: Windows paths are compared
// case-insensitively and take either slash, so the name is too.
func PipeName(socketPath string) string {
	root := strings.ReplaceAll(strings.ToLower(socketPath), `\`, "/")
	sum := sha256.Sum256([]byte(path.Dir(path.Clean(root))))
	return `\\.\pipe\sandboxdesk-` + hex.EncodeToString(sum[:16])
}
