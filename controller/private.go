package controller

import "os"

// makePrivate keeps the root its owner's alone (0700): the database, the
// control socket and every sandbox's folder are inside. Group search
// alone is left as it is: that is how an access list that lets one named
// user (a root controller's person, on the way to a workspace) pass
// through shows in the mode.
func makePrivate(root string) error {
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o067 == 0 {
		return nil
	}
	return os.Chmod(root, 0o700)
}
