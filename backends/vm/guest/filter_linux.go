package guest

import "sandboxdesk/backends/syscallfilter"

// refuseBroadcast puts this process, and every command it starts, under
// broadcastFilter.
func refuseBroadcast() error {
	prog, err := broadcastFilter()
	if err != nil {
		return err
	}
	return syscallfilter.Load(prog)
}
