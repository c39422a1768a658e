package guest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ModuleOrder lists the initrd's kernel modules, one file a line, in the
// order their dependencies need (the image build writes it).
const ModuleOrder = "/lib/modules/sandboxdesk.order"

// Setup prepares the machine as the first process: kernel file systems,
// modules, hostname, network, the root disk when there is one, and the
// workspace. A step that fails is logged and the others still run, so the
// console tells what is wrong while the agent can still answer.
func Setup(log func(string, ...any)) Settings {
	// /run first: the network's lease is written there, and it moves
	// with the kernel's file systems onto a root disk
	mountKernelFS(log, "/proc", "/sys", "/dev", "/run")
	if err := loadModules(ModuleOrder); err != nil {
		log("modules: %v", err)
	}
	// the console the kernel gave this process may be none that shows
	// (vz's virtio console is a module, loaded just now): what the init
	// and the agent say from here on goes to the console that is
	if err := reopenConsole(); err != nil {
		log("console: %v", err)
	}
	cmdline, _ := os.ReadFile("/proc/cmdline")
	s := ParseCmdline(string(cmdline))
	if err := unix.Sethostname([]byte(s.Hostname)); err != nil {
		log("hostname: %v", err)
	}
	// the network is the kernel's, set up with the initrd's tools: a root
	// disk need not have them
	resolv, err := network(s)
	if err != nil {
		log("network: %v", err)
	}
	if s.Root != "" {
		if err := switchRoot(s.Root); err != nil {
			log("root disk %s: %v; staying in the initrd", s.Root, err)
		}
	}
	mountKernelFS(log, "/dev/pts", "/tmp")
	os.Symlink("/proc/self/fd", "/dev/fd")
	os.WriteFile("/etc/hostname", []byte(s.Hostname+"\n"), 0o644)
	// written by the init, in the root its commands will see
	if resolv != "" {
		if err := os.WriteFile("/etc/resolv.conf", []byte(resolv), 0o644); err != nil {
			log("resolv.conf: %v", err)
		}
	}
	os.MkdirAll("/home/user", 0o755)
	if err := os.Chown("/home/user", UserUID, UserUID); err != nil {
		log("home: %v", err)
	}
	if err := mountWorkspace(s); err != nil {
		log("workspace: %v", err)
	}
	return s
}

// kernelFS are the file systems every guest mounts, by mount point.
var kernelFS = map[string]struct{ src, fs, opts string }{
	"/proc":    {"proc", "proc", ""},
	"/sys":     {"sysfs", "sysfs", ""},
	"/dev":     {"devtmpfs", "devtmpfs", "mode=0755"},
	"/dev/pts": {"devpts", "devpts", "gid=5,mode=0620,ptmxmode=0666"},
	"/tmp":     {"tmpfs", "tmpfs", "mode=1777"},
	"/run":     {"tmpfs", "tmpfs", "mode=0755"},
}

func mountKernelFS(log func(string, ...any), dirs ...string) {
	for _, dir := range dirs {
		m := kernelFS[dir]
		os.MkdirAll(dir, 0o755)
		if err := unix.Mount(m.src, dir, m.fs, unix.MS_NOSUID, m.opts); err != nil && !errors.Is(err, unix.EBUSY) {
			log("mount %s: %v", dir, err)
		}
	}
}

// sysroot is where the root disk is mounted before it becomes /.
const sysroot = "/sysroot"

// switchRoot mounts the ext4 root disk and makes it / for this process
// and all it starts, carrying the kernel's file systems over. The initrd
// is the kernel's rootfs, which cannot be pivoted away: the disk is moved
// over it and chrooted into, as switch_root does. The agent's binary
// stays reachable as /proc/self/exe.
func switchRoot(dev string) error {
	if err := os.MkdirAll(sysroot, 0o755); err != nil {
		return err
	}
	// the disk shows up once virtio_blk has probed it
	var err error
	for range 50 {
		if err = unix.Mount(dev, sysroot, "ext4", 0, ""); !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENXIO) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("mount: %w", err)
	}
	for _, dir := range []string{"/proc", "/sys", "/dev", "/run"} {
		target := sysroot + dir
		os.MkdirAll(target, 0o755)
		if err := unix.Mount(dir, target, "", unix.MS_MOVE, ""); err != nil {
			return fmt.Errorf("move %s: %w", dir, err)
		}
	}
	if err := unix.Chdir(sysroot); err != nil {
		return err
	}
	if err := unix.Mount(".", "/", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("move the disk to /: %w", err)
	}
	if err := unix.Chroot("."); err != nil {
		return err
	}
	return unix.Chdir("/")
}

// reopenConsole points the standard files at /dev/console as it is now.
func reopenConsole() error {
	f, err := os.OpenFile("/dev/console", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for fd := 0; fd < 3; fd++ {
		if err := unix.Dup3(int(f.Fd()), fd, 0); err != nil {
			return err
		}
	}
	return nil
}

// loadModules loads every module named in the order file; one already
// there (built in, or loaded) is fine.
func loadModules(order string) error {
	f, err := os.Open(order)
	if err != nil {
		return err
	}
	defer f.Close()
	var errs []error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" {
			continue
		}
		if err := loadModule(filepath.Join(filepath.Dir(order), name)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && !errors.Is(err, unix.EEXIST) {
		return err
	}
	return nil
}

// network brings up loopback and, when asked, the user-mode network:
// leased by DHCP (vz's NAT), or QEMU's slirp with its fixed addresses
// (the guest 10.0.2.15, the gateway 10.0.2.2, its DNS 10.0.2.3). With
// "on" the gateway's own address is refused: slirp maps it to the host's
// loopback, and vz's gateway is the host itself; a sandbox reaches it
// only with "host". It returns the resolv.conf the network needs.
func network(s Settings) (string, error) {
	if err := run([]string{"ip", "link", "set", "lo", "up"}); err != nil {
		return "", err
	}
	if s.Network != "on" && s.Network != "host" {
		return "", nil
	}
	if s.DHCP {
		return lease()
	}
	steps := [][]string{
		{"ip", "link", "set", "eth0", "up"},
		{"ip", "addr", "add", "10.0.2.15/24", "dev", "eth0"},
		{"ip", "route", "add", "default", "via", "10.0.2.2"},
	}
	if s.Network == "on" {
		steps = append(steps, []string{"ip", "route", "add", "prohibit", "10.0.2.2/32"})
	}
	for _, step := range steps {
		if err := run(step); err != nil {
			return "", err
		}
	}
	return "nameserver 10.0.2.3\n", nil
}

// run runs one of busybox's applets.
func run(args []string) error {
	if out, err := exec.Command("/bin/busybox", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// mountWorkspace mounts the host's share at /workspace and hands its top
// to the guest's user. Under qemu the host exports it with mapped
// ownership, so the owner set here is an attribute on the host folder,
// which stays the controller's user's.
func mountWorkspace(s Settings) error {
	if err := os.MkdirAll("/workspace", 0o755); err != nil {
		return err
	}
	fstype, opts := shareMount(s.ShareFS)
	if err := unix.Mount(s.Share, "/workspace", fstype, unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount %s share %q: %w", fstype, s.Share, err)
	}
	if s.ShareFS == ShareFSVirtio {
		// vz's virtio-fs makes every file the host user's, whatever
		// owner the guest asks for: chown is not needed, nor kept
		return nil
	}
	return os.Chown("/workspace", UserUID, UserUID)
}

// Reap collects every orphan that ends, forever: the first process of a
// machine inherits them all.
func Reap() {
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); errors.Is(err, unix.ECHILD) {
			select {} // no child at all: nothing will ever come
		}
	}
}

// PowerOff ends every process, writes what is cached and turns the
// machine off.
func PowerOff() {
	unix.Kill(-1, unix.SIGKILL)
	unix.Sync()
	unix.Unmount("/workspace", 0)
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}
