package vz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/Code-Hex/vz/v3"
)

// configuration translates the machine's description into the
// framework's, and validates it.
func configuration(c Config) (*vz.VirtualMachineConfiguration, error) {
	bl, err := vz.NewLinuxBootLoader(c.Kernel, vz.WithCommandLine(c.Cmdline), vz.WithInitrd(c.Initrd))
	if err != nil {
		return nil, refused(err)
	}
	conf, err := vz.NewVirtualMachineConfiguration(bl, uint(c.CPUs), uint64(c.MemoryMiB)<<20)
	if err != nil {
		return nil, refused(err)
	}
	id, idData, err := identity(c.Identity)
	if err != nil {
		return nil, err
	}
	platform, err := vz.NewGenericPlatformConfiguration(vz.WithGenericMachineIdentifier(id))
	if err != nil {
		return nil, refused(err)
	}
	conf.SetPlatformVirtualMachineConfiguration(platform)
	steps := []func(*vz.VirtualMachineConfiguration, Config) error{console, entropy, disks, shares, socket}
	if c.NAT {
		steps = append(steps, func(conf *vz.VirtualMachineConfiguration, c Config) error { return nat(conf, idData) })
	}
	for _, step := range steps {
		if err := step(conf, c); err != nil {
			return nil, refused(err)
		}
	}
	if err := validate(conf); err != nil {
		return nil, err
	}
	return conf, nil
}

// validate asks the framework whether it will build the machine; what it
// refuses (no entitlement, no virtualization) comes back as one sentence.
func validate(conf *vz.VirtualMachineConfiguration) error {
	ok, err := conf.Validate()
	if err != nil {
		return refused(err)
	}
	if !ok {
		return explain("the configuration is not valid")
	}
	return nil
}

// console writes the guest's virtio console into the sandbox's log.
func console(conf *vz.VirtualMachineConfiguration, c Config) error {
	// made here, owned by the controller, never through a link
	f, err := os.OpenFile(c.ConsoleLog, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	att, err := vz.NewFileSerialPortAttachment(c.ConsoleLog, false)
	if err != nil {
		return err
	}
	port, err := vz.NewVirtioConsoleDeviceSerialPortConfiguration(att)
	if err != nil {
		return err
	}
	conf.SetSerialPortsVirtualMachineConfiguration([]*vz.VirtioConsoleDeviceSerialPortConfiguration{port})
	return nil
}

func entropy(conf *vz.VirtualMachineConfiguration, c Config) error {
	if !c.Entropy {
		return nil
	}
	e, err := vz.NewVirtioEntropyDeviceConfiguration()
	if err != nil {
		return err
	}
	conf.SetEntropyDevicesVirtualMachineConfiguration([]*vz.VirtioEntropyDeviceConfiguration{e})
	return nil
}

// disks attaches the raw disks, cached by the host and flushed with
// fsync, so a guest's write survives the app ending.
func disks(conf *vz.VirtualMachineConfiguration, c Config) error {
	var devs []vz.StorageDeviceConfiguration
	for _, d := range c.Disks {
		att, err := vz.NewDiskImageStorageDeviceAttachmentWithCacheAndSync(d.Path, d.ReadOnly, vz.DiskImageCachingModeCached, vz.DiskImageSynchronizationModeFsync)
		if err != nil {
			return err
		}
		blk, err := vz.NewVirtioBlockDeviceConfiguration(att)
		if err != nil {
			return err
		}
		devs = append(devs, blk)
	}
	conf.SetStorageDevicesVirtualMachineConfiguration(devs)
	return nil
}

// shares exposes each folder over virtio-fs under its tag; the guest's
// files are the host user's.
func shares(conf *vz.VirtualMachineConfiguration, c Config) error {
	var devs []vz.DirectorySharingDeviceConfiguration
	for _, s := range c.Shares {
		dir, err := vz.NewSharedDirectory(s.Path, s.ReadOnly)
		if err != nil {
			return err
		}
		single, err := vz.NewSingleDirectoryShare(dir)
		if err != nil {
			return err
		}
		fs, err := vz.NewVirtioFileSystemDeviceConfiguration(s.Tag)
		if err != nil {
			return err
		}
		fs.SetDirectoryShare(single)
		devs = append(devs, fs)
	}
	conf.SetDirectorySharingDevicesVirtualMachineConfiguration(devs)
	return nil
}

// socket is the virtio-vsock device the agent listens on.
func socket(conf *vz.VirtualMachineConfiguration, _ Config) error {
	s, err := vz.NewVirtioSocketDeviceConfiguration()
	if err != nil {
		return err
	}
	conf.SetSocketDevicesVirtualMachineConfiguration([]vz.SocketDeviceConfiguration{s})
	return nil
}

// nat is one network device behind the framework's NAT, its address
// derived from the machine's identity.
func nat(conf *vz.VirtualMachineConfiguration, identity []byte) error {
	att, err := vz.NewNATNetworkDeviceAttachment()
	if err != nil {
		return err
	}
	dev, err := vz.NewVirtioNetworkDeviceConfiguration(att)
	if err != nil {
		return err
	}
	mac, err := vz.NewMACAddress(macAddress(identity))
	if err != nil {
		return err
	}
	dev.SetMACAddress(mac)
	conf.SetNetworkDevicesVirtualMachineConfiguration([]*vz.VirtioNetworkDeviceConfiguration{dev})
	return nil
}

// identity reads the machine's generic identifier from path, making and
// keeping one when there is none (or it is damaged: a checkpoint saved
// under the old one then boots cold).
func identity(path string) (*vz.GenericMachineIdentifier, []byte, error) {
	if data, err := readSmall(path); err == nil {
		if id, err := vz.NewGenericMachineIdentifierWithData(data); err == nil {
			return id, data, nil
		}
	}
	id, err := vz.NewGenericMachineIdentifier()
	if err != nil {
		return nil, nil, refused(err)
	}
	data := id.DataRepresentation()
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("vz: machine identity: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("vz: machine identity: %w", err)
	}
	return id, data, nil
}

// readSmall reads a file of the sandbox's folder that is never large,
// without following a link.
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if err != nil {
		return nil, err
	}
	if n == len(buf) {
		return nil, errors.New(filepath.Base(path) + " is too large")
	}
	return buf[:n], nil
}
