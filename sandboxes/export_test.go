package sandboxes

import "time"

// SetSilenceNotice sets how long a request waits before a silent
// controller is named, and returns what restores it.
func SetSilenceNotice(d time.Duration) (restore func()) {
	old := silenceNotice
	silenceNotice = d
	return func() { silenceNotice = old }
}
