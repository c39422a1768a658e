package wsl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// distroPrefix is the start of every distro name this program makes;
// rootPrefix adds the root's mark, so two roots on one Windows account
// never see (or remove) each other's distros.
const distroPrefix = "sandboxdesk-"

// rootPrefix is the start of the names of root's distros. A root is
// named by a hash of its cleaned, case-folded path: Windows paths are
// case-insensitive and take either slash, and a distro name allows few
// characters.
func rootPrefix(root string) string {
	clean := path.Clean(strings.ReplaceAll(strings.ToLower(root), `\`, "/"))
	sum := sha256.Sum256([]byte(clean))
	return distroPrefix + hex.EncodeToString(sum[:4]) + "-"
}

// distroName is the distro of sandbox id under root.
func distroName(root, id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("sandbox id %q cannot name a WSL distro (letters, digits, '-', '_' and '.' only)", id)
	}
	return rootPrefix(root) + id, nil
}

// idOf is the sandbox id of a distro of root's, false for every other
// distro (the user's own, another root's).
func idOf(root, distro string) (string, bool) {
	id, ok := strings.CutPrefix(distro, rootPrefix(root))
	if !ok || !validID(id) {
		return "", false
	}
	return id, true
}

// validID: wsl.exe accepts distro names of letters, digits, '-', '_' and
// '.', at most 64 characters in all.
func validID(id string) bool {
	return len(id) <= 64-len(distroPrefix)-9 && validDistroName(id)
}

func validDistroName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}
