package guest

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// vsockListener listens on a vsock port of the guest. Go's net package
// knows no vsock addresses, so the sockets are plain descriptors, read
// and written through os.File.
type vsockListener struct{ fd int }

func listenVsock(port uint32) (*vsockListener, error) {
	fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("vsock: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrVM{CID: unix.VMADDR_CID_ANY, Port: port}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("vsock port %d: %w", port, err)
	}
	if err := unix.Listen(fd, 8); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("vsock port %d: %w", port, err)
	}
	return &vsockListener{fd}, nil
}

// Accept waits for the host's next connection.
func (l *vsockListener) Accept() (io.ReadWriteCloser, error) {
	for {
		nfd, _, err := unix.Accept4(l.fd, unix.SOCK_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("vsock accept: %w", err)
		}
		return os.NewFile(uintptr(nfd), "vsock"), nil
	}
}

func (l *vsockListener) Close() error { return unix.Close(l.fd) }
