package guest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ModuleOrder lists the initrd's kernel modules, one file a line, in the
// order their dependencies need (the image build writes it).
const ModuleOrder = "/lib/modules/sandboxdesk.order"

// Setup prepares the machine as the first process: kernel file systems,
// modules, hostname, network and workspace. A step that fails is logged
// and the others still run, so the console tells what is wrong while the
// agent can still answer.
func Setup(log func(string, ...any)) Settings {
	for _, m := range []struct{ src, dir, fs, opts string }{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"devtmpfs", "/dev", "devtmpfs", "mode=0755"},
		{"devpts", "/dev/pts", "devpts", "gid=5,mode=0620,ptmxmode=0666"},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
		{"tmpfs", "/run", "tmpfs", "mode=0755"},
	} {
		os.MkdirAll(m.dir, 0o755)
		if err := unix.Mount(m.src, m.dir, m.fs, unix.MS_NOSUID, m.opts); err != nil && !errors.Is(err, unix.EBUSY) {
			log("mount %s: %v", m.dir, err)
		}
	}
	os.Symlink("/proc/self/fd", "/dev/fd")
	os.MkdirAll("/home/user", 0o755)
	if err := os.Chown("/home/user", UserUID, UserUID); err != nil {
		log("home: %v", err)
	}
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
	os.WriteFile("/etc/hostname", []byte(s.Hostname+"\n"), 0o644)
	resolv, err := network(s)
	if err != nil {
		log("network: %v", err)
	}
	// written by the init, in the root its commands will see
	if resolv != "" {
		if err := os.WriteFile("/etc/resolv.conf", []byte(resolv), 0o644); err != nil {
			log("resolv.conf: %v", err)
		}
	}
	if err := mountWorkspace(s); err != nil {
		log("workspace: %v", err)
	}
	return s
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
