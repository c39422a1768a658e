package daemon

// guestImageDirs: the VM backend's guest images, built or pulled.
func guestImageDirs() []string {
	if d := GuestDir(); d != "" {
		return []string{d}
	}
	return nil
}
