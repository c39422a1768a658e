package vz

import "github.com/Code-Hex/vz/v3"

// saveState writes a paused machine's state to path.
func saveState(machine *vz.VirtualMachine, path string) error {
	return machine.SaveMachineStateToPath(path)
}

// restoreState loads a stopped machine's state from path, leaving it
// paused.
func restoreState(machine *vz.VirtualMachine, path string) error {
	return machine.RestoreMachineStateFromURL(path)
}
