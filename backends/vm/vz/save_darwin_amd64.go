package vz

import (
	"fmt"

	"github.com/Code-Hex/vz/v3"
)

// On an Intel Mac the framework saves no machine state (CanCheckpoint
// says so, and the core stops cold); these say why if asked anyway.

func saveState(*vz.VirtualMachine, string) error {
	return fmt.Errorf("%w: Virtualization.framework saves machine state only on Apple silicon", ErrUnsupported)
}

func restoreState(*vz.VirtualMachine, string) error {
	return fmt.Errorf("%w: Virtualization.framework restores machine state only on Apple silicon", ErrUnsupported)
}
