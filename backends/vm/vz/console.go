//go:build unix

package vz

import (
	"fmt"
	"os"
	"syscall"
)

// consoleLimit is the most a machine's console log holds: a guest may
// write to its console without end, and the log is on the Mac's disk.
const consoleLimit = 8 << 20

// trimConsole cuts the console log at path once it holds more than limit
// bytes, down to a line that says so and its last limit/2 bytes (what the
// guest said last is what explains its end). The framework writes the log
// in append mode, so what it writes next lands after the kept tail, not
// at its old offset; a few bytes written while it is cut may be lost.
func trimConsole(path string, limit int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("console log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("console log: %w", err)
	}
	if st.Size() <= limit {
		return nil
	}
	tail := make([]byte, limit/2)
	n, err := f.ReadAt(tail, st.Size()-int64(len(tail)))
	if n < len(tail) {
		return fmt.Errorf("console log: read its end: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("console log: %w", err)
	}
	note := fmt.Sprintf("[sandboxdesk: the console log passed %d bytes; what came before its last %d is cut]\n", limit, len(tail))
	if _, err := f.Write(append([]byte(note), tail...)); err != nil {
		return fmt.Errorf("console log: %w", err)
	}
	return nil
}
