package guest

// shareMount is how the workspace share is mounted: the file system and
// its options. 9p (QEMU) without a cache, so a file the host changes is
// seen at once, and with the guest's owners kept by the host as
// attributes; virtio-fs (vz) as the host serves it.
func shareMount(fs string) (fstype, opts string) {
	if fs == ShareFSVirtio {
		return "virtiofs", ""
	}
	return "9p", "trans=virtio,version=9p2000.L,msize=262144,cache=none,access=client"
}
