package cli

import "errors"

// terminate: Windows has no polite signal for another console process.
func terminate(pid int) error {
	return errors.New("it does not answer on its socket; close it from its window, or end it in Task Manager")
}
