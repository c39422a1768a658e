//go:build unix

package agent

import (
	"io"
	"os"
	"os/exec"
	"time"

	"sandboxdesk/stream"
)

// outputGrace is how long the output of a command that exited may still
// flow: a background process it left keeps the pipes open, and the
// command is done when its own process exits, as with "docker exec".
const outputGrace = 100 * time.Millisecond

// output is a command's stdout and stderr: pipes of this agent's, larger
// than the kernel's default so a command's writes reach the session in
// chunks of up to stream.ChunkSize, one frame each, rather than 64 KiB
// ones, and copied by goroutines the agent waits for itself.
type output struct {
	readers, writers []*os.File
	done             chan struct{}
}

// pipeOutput gives cmd a pipe for each of stdout and stderr, copied into
// the given writers once the command starts.
func pipeOutput(cmd *exec.Cmd, stdout, stderr io.Writer) (*output, error) {
	o := &output{done: make(chan struct{}, 2)}
	for _, dst := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		pr, pw, err := os.Pipe()
		if err != nil {
			o.close()
			return nil, err
		}
		stream.GrowPipe(pr)
		o.readers, o.writers = append(o.readers, pr), append(o.writers, pw)
		*dst = pw
	}
	for i, w := range []io.Writer{stdout, stderr} {
		go func() {
			io.Copy(w, o.readers[i])
			o.done <- struct{}{}
		}()
	}
	return o, nil
}

// started drops the agent's copies of the write ends: the command holds
// its own, and its exit (with whatever it left running) ends the copies.
func (o *output) started() {
	for _, w := range o.writers {
		w.Close()
	}
}

// wait waits, once the command exited, for its output to end, for up to
// outputGrace; then it stops reading.
func (o *output) wait() {
	t := time.NewTimer(outputGrace)
	defer t.Stop()
	for range o.readers {
		select {
		case <-o.done:
		case <-t.C:
			o.close() // the copies end on the closed readers
			<-o.done
		}
	}
	o.close()
}

// close closes every pipe end still open; the copies then end.
func (o *output) close() {
	for _, f := range append(o.readers, o.writers...) {
		f.Close()
	}
}
