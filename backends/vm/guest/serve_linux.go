package guest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends/agent"
	"sandboxdesk/backends/vm/channel"
)

const guestPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Serve runs the agent for ever on the channel s names: a vsock port
// (vz), where every connection the host makes is a channel of its own, or
// the virtio-serial port (qemu), which reads as ended when the host goes
// away (a controller restarting), and the agent listens again for the
// next one.
func Serve(s Settings, log func(string, ...any)) error {
	// no command may broadcast to the host's loopback: the agent does not
	// answer without the filter (see broadcastFilter)
	if err := refuseBroadcast(); err != nil {
		return err
	}
	// commands are looked up in the agent's own PATH; the kernel gives the
	// first process none
	os.Setenv("PATH", guestPath)
	srv := &agent.Server{
		Env: []string{
			"PATH=" + guestPath,
			"HOME=/home/user", "USER=user", "LOGNAME=user", "SHELL=/bin/sh", "TERM=xterm-256color",
		},
		Dir:        "/workspace",
		Credential: &syscall.Credential{Uid: UserUID, Gid: UserUID, NoSetGroups: true},
		Ops: map[string]func(agent.Request) int{
			"poweroff": powerOffAfter,
			"release":  release,
			"mount":    func(agent.Request) int { return status(mountWorkspace(s), log) },
		},
	}
	if s.Vsock != 0 {
		return serveVsock(srv, s.Vsock, log)
	}
	dev, err := findPort(s.Port)
	if err != nil {
		return err
	}
	for {
		f, err := os.OpenFile(dev, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", dev, err)
		}
		l, err := channel.Listen(f)
		if err != nil {
			return err
		}
		srv.Serve(l)
		l.Close()
		// the port reads as ended while no host is connected
		time.Sleep(200 * time.Millisecond)
	}
}

// serveVsock accepts the host's connections on a vsock port; each is one
// channel, served until the host closes it.
func serveVsock(srv *agent.Server, port uint32, log func(string, ...any)) error {
	l, err := listenVsock(port)
	if err != nil {
		return err
	}
	defer l.Close()
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			cl, err := channel.Listen(conn)
			if err != nil {
				log("vsock channel: %v", err)
				conn.Close()
				return
			}
			srv.Serve(cl)
			cl.Close()
		}()
	}
}

// release unmounts the workspace before a checkpoint (QEMU refuses to
// save a machine while its 9p export is mounted): 1 when something still
// uses it, and the machine stops cold instead.
func release(agent.Request) int {
	unix.Sync()
	if err := unix.Unmount("/workspace", 0); err != nil {
		return 1
	}
	return 0
}

func status(err error, log func(string, ...any)) int {
	if err != nil {
		log("%v", err)
		return 1
	}
	return 0
}

// powerOffAfter answers the host, then asks every command to end, waits
// the grace and powers off: the host sees the machine go.
func powerOffAfter(req agent.Request) int {
	go func() {
		time.Sleep(100 * time.Millisecond)
		unix.Kill(-1, unix.SIGTERM)
		deadline := time.Now().Add(time.Duration(req.GraceMs) * time.Millisecond)
		for time.Now().Before(deadline) && othersAlive() {
			time.Sleep(50 * time.Millisecond)
		}
		PowerOff()
	}()
	return 0
}

// othersAlive says whether a process other than init and this agent runs.
func othersAlive() bool {
	entries, _ := os.ReadDir("/proc")
	self := fmt.Sprint(os.Getpid())
	for _, e := range entries {
		n := e.Name()
		if n[0] < '0' || n[0] > '9' || n == "1" || n == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil || zombieOrKernel(string(stat)) {
			continue
		}
		return true
	}
	return false
}

// zombieOrKernel reads "pid (comm) S ppid ...": a zombie, or a kernel
// thread (parent 2, or kthreadd itself), is not a command.
func zombieOrKernel(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	f := strings.Fields(stat[i+2:])
	return len(f) < 2 || f[0] == "Z" || f[1] == "2" || f[1] == "0"
}

// findPort finds the device of the virtio-serial port with that name
// (there is no udev to make /dev/virtio-ports links).
func findPort(name string) (string, error) {
	for i := 0; i < 100; i++ {
		matches, _ := filepath.Glob("/sys/class/virtio-ports/*/name")
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err == nil && strings.TrimSpace(string(b)) == name {
				return "/dev/" + filepath.Base(filepath.Dir(m)), nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", errors.New("no virtio-serial port named " + name)
}
