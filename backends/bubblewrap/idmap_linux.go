package bubblewrap

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// idmappedTree makes a detached mount of dir through which the person's
// files appear as the sandbox user's, and what the sandbox user makes is
// the person's on disk: the workspace stays its person's on the host
// while a sandbox of its own uid works in it. Files of anyone else show as
// nobody inside and cannot be made there. It needs a kernel with idmapped
// mounts (5.12 and later) and a file system that supports them.
func idmappedTree(dir string, userns *os.File) (*os.File, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return nil, fmt.Errorf("open the workspace as a mount: %w", err)
	}
	attr := unix.MountAttr{
		Attr_set:  unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV,
		Userns_fd: uint64(userns.Fd()),
	}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("idmap the workspace: %w", err)
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// mappedUserns is a user namespace that maps the person's ids (as found
// on disk) to the sandbox's host ids, made by a short-lived process and
// kept alive by the descriptor returned.
func mappedUserns(person, sandbox ids) (*os.File, error) {
	cmd := exec.Command("/proc/self/exe", holdCommand)
	cmd.Dir = "/"
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: person.uid, HostID: sandbox.uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: person.gid, HostID: sandbox.gid, Size: 1}},
	}
	hold, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("make the workspace's id mapping: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("make the workspace's id mapping: %w", err)
	}
	// the namespace is held by its descriptor once open; the holder's
	// end, which the kernel takes a while over, is off the start's path
	defer func() {
		hold.Close()
		cmd.Process.Kill()
		go cmd.Wait()
	}()
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid))
	if err != nil {
		return nil, fmt.Errorf("make the workspace's id mapping: %w", err)
	}
	return f, nil
}

// POSIX ACL entries, as the kernel stores them in system.posix_acl_access.
const (
	aclVersion  = 2
	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclMask     = 0x10
	aclOther    = 0x20
	aclExecute  = 1
	aclAll      = 7
	aclNoID     = 0xFFFFFFFF
)

// letPass lets one more user pass through dir (search, not list) while it
// stays 0700 for everyone else: a root controller's person reaches their
// workspace inside the root, and no one else, sandbox users included,
// does.
func letPass(dir string, uid int) error {
	entries := []struct {
		tag, perm uint16
		id        uint32
	}{
		{aclUserObj, aclAll, aclNoID},
		{aclUser, aclExecute, uint32(uid)},
		{aclGroupObj, 0, aclNoID},
		{aclMask, aclExecute, aclNoID},
		{aclOther, 0, aclNoID},
	}
	buf := binary.LittleEndian.AppendUint32(nil, aclVersion)
	for _, e := range entries {
		buf = binary.LittleEndian.AppendUint16(buf, e.tag)
		buf = binary.LittleEndian.AppendUint16(buf, e.perm)
		buf = binary.LittleEndian.AppendUint32(buf, e.id)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("let uid %d reach %s: %w", uid, dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Fsetxattr(fd, "system.posix_acl_access", buf, 0); err != nil {
		return fmt.Errorf("let uid %d reach %s: %w", uid, dir, err)
	}
	return nil
}
