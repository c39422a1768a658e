package vz

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// MinMacOS is the oldest macOS the driver runs on: virtio-fs, a forced
// stop and the generic machine identifier all need 13.
const MinMacOS = 13

// CheckpointMacOS is the first macOS that saves a machine's state.
const CheckpointMacOS = 14

// ErrUnsupported is a Mac that cannot run VM sandboxes: too old a macOS,
// no hardware virtualization, or a binary without the entitlement.
var ErrUnsupported = errors.New("this Mac cannot run VM sandboxes")

// majorVersion reads macOS's major version from its product version
// ("14.2.1"); 0 when it cannot.
func majorVersion(product string) int {
	major, _, _ := strings.Cut(strings.TrimSpace(product), ".")
	n, err := strconv.Atoi(major)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// canCheckpoint says whether the framework saves machines here: macOS 14
// or later, on Apple silicon only (the framework's save and restore exist
// for arm64 alone).
func canCheckpoint(goarch string, macOSMajor int) bool {
	return goarch == "arm64" && macOSMajor >= CheckpointMacOS
}

// checkKernel checks the start of the image's kernel against what
// VZLinuxBootLoader boots: on Apple silicon an uncompressed arm64 Image
// ("ARMd" at byte 56), never a compressed one; on Intel a bzImage ("HdrS"
// at byte 0x202).
func checkKernel(head []byte, goarch string) error {
	switch goarch {
	case "arm64":
		if len(head) >= 60 && bytes.Equal(head[56:60], []byte("ARM\x64")) {
			return nil
		}
		if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
			return errors.New("the image's kernel is gzip-compressed; vz boots only an uncompressed arm64 Image (build the image again with `make guest-image ARCH=arm64`)")
		}
		return errors.New("the image's kernel is not an arm64 Image, the only kind vz boots on Apple silicon (build the image with `make guest-image ARCH=arm64`)")
	case "amd64":
		if len(head) >= 0x206 && bytes.Equal(head[0x202:0x206], []byte("HdrS")) {
			return nil
		}
		return errors.New("the image's kernel is not an x86 bzImage, the only kind vz boots on an Intel Mac (build the image with `make guest-image ARCH=amd64`)")
	}
	return fmt.Errorf("vz runs no %s machines", goarch)
}

// macAddress is the machine's network address, derived from its identity
// so it stays the same across cold boots and restores (the saved state
// knows the device by it), and locally administered so it is no vendor's.
func macAddress(identity []byte) net.HardwareAddr {
	sum := sha256.Sum256(append([]byte("sandboxdesk mac "), identity...))
	mac := net.HardwareAddr(sum[:6])
	mac[0] = mac[0]&^0x01 | 0x02 // unicast, locally administered
	return mac
}

// explain turns what Virtualization.framework says when it refuses a
// machine into one sentence for the person who reads it, marked
// ErrUnsupported when the Mac (or the binary) is the reason.
func explain(desc string) error {
	d := strings.ToLower(desc)
	switch {
	case strings.Contains(d, "com.apple.security.virtualization") || strings.Contains(d, "entitlement"):
		return fmt.Errorf("%w: this sandboxdesk is not signed with the com.apple.security.virtualization entitlement; build it with `make build`, which signs it", ErrUnsupported)
	case strings.Contains(d, "virtualization is not available") || strings.Contains(d, "not supported on this"):
		return fmt.Errorf("%w: macOS says virtualization is not available on this hardware (an Intel Mac without it, or a Mac that is itself a VM)", ErrUnsupported)
	case strings.Contains(d, "limit") && strings.Contains(d, "virtual machine"):
		return fmt.Errorf("macOS runs no more virtual machines at once: stop a sandbox (or another VM app) first (%s)", desc)
	case strings.Contains(d, "disk") || strings.Contains(d, "storage"):
		return fmt.Errorf("the VM's disk was refused: %s", desc)
	}
	return fmt.Errorf("Virtualization.framework refused the VM: %s", desc)
}
