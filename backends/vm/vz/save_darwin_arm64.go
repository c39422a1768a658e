package vz

import (
	"errors"

	"github.com/Code-Hex/vz/v3"
)

// saveState writes a paused machine's state to path.
func saveState(machine *vz.VirtualMachine, path string) error {
	return machine.SaveMachineStateToPath(path)
}

// restoreState loads a stopped machine's state from path, leaving it
// paused.
func restoreState(machine *vz.VirtualMachine, path string) error {
	return machine.RestoreMachineStateFromURL(path)
}

// saveSupport asks the framework whether it would save a machine built
// as conf.
func saveSupport(conf *vz.VirtualMachineConfiguration) error {
	ok, err := conf.ValidateSaveRestoreSupport()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the framework does not save this configuration")
	}
	return nil
}
