//go:build unix

package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"

	"sandboxdesk/stream"
)

// Server is the agent's side: it runs inside the sandbox.
type Server struct {
	// Env is the environment every command starts from.
	Env []string
	// Dir is where commands start when the request names no folder.
	Dir string
	// Credential, when set, is who commands run as (a VM's agent runs as
	// root and its commands as the guest's user).
	Credential *syscall.Credential
	// Ops answers operations beyond exec, ping and terminate (a VM's
	// "poweroff") with an exit status.
	Ops map[string]func(Request) int

	ready *os.File // told once the agent accepts calls (see ReadyPrefix)
}

// Serve accepts connections on l until it fails, one command each.
func (s *Server) Serve(l net.Listener) error {
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		go s.handle(conn)
	}
}

func (s *Server) handle(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		fail(conn, "agent: bad request: "+err.Error())
		return
	}
	switch req.Op {
	case "ping":
		writeExit(conn, 0)
	case "terminate":
		writeExit(conn, terminateAll(time.Duration(req.GraceMs)*time.Millisecond))
	case "", "exec":
		s.exec(conn, br, req)
	default:
		if op, ok := s.Ops[req.Op]; ok {
			writeExit(conn, op(req))
			return
		}
		fail(conn, fmt.Sprintf("agent: unknown op %q", req.Op))
	}
}

func writeExit(w io.Writer, code int) error {
	return stream.Write(w, stream.Exit, stream.ExitPayload(code))
}

func fail(w io.Writer, msg string) { stream.Write(w, stream.Error, []byte(msg)) }

func (s *Server) exec(conn net.Conn, br *bufio.Reader, req Request) {
	if len(req.Args) == 0 {
		fail(conn, "agent: no command")
		return
	}
	sess := stream.Serve(br, conn)
	if req.Dir != "" {
		// said plainly, and as bad input, rather than as a failed chdir
		if fi, err := os.Stat(req.Dir); err != nil || !fi.IsDir() {
			sess.Refuse(RefusedInvalid, "no folder "+req.Dir)
			return
		}
	}
	env := append(append([]string(nil), s.Env...), req.Env...)
	dir := req.Dir
	if dir == "" {
		dir = s.Dir
	}
	path, err := lookPath(req.Args[0], lookupEnv(env, "PATH"), dir)
	if err != nil {
		sess.Fail(fmt.Sprintf("%s: %v", req.Args[0], err))
		return
	}
	cmd := &exec.Cmd{Path: path, Args: req.Args, Env: env, Dir: dir}
	var ptmx *os.File
	var out *output
	if req.TTY != nil {
		// a session of its own with the terminal as its controlling one
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.Credential}
		ptmx, err = startOnTerminal(cmd, sess, *req.TTY)
	} else {
		// its own process group, so a signal reaches the whole command line
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.Credential}
		out, err = pipeOutput(cmd, sess.Stdout, sess.Stderr)
		if err == nil {
			if sess.NoInput() {
				err = cmd.Start() // on /dev/null: no pipe, no copier
			} else {
				err = startWithInput(cmd, sess.Stdin())
			}
			out.started()
		}
	}
	if err != nil {
		if out != nil {
			out.wait() // nothing to wait for: the copies end at once
		}
		sess.Fail(err.Error())
		return
	}
	exited := make(chan struct{})
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		for {
			select {
			case sig := <-sess.Signals():
				syscall.Kill(-cmd.Process.Pid, sig)
			case sz := <-sess.Resizes():
				if ptmx != nil {
					pty.Setsize(ptmx, &pty.Winsize{Rows: sz.Rows, Cols: sz.Cols})
				}
			case <-sess.Gone():
				select {
				case <-exited:
				default:
					// the client went away mid-command: clean up after it
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				}
				return
			case <-exited:
				return
			}
		}
	}()
	err = cmd.Wait()
	if out != nil {
		out.wait()
	}
	close(exited)
	<-relayed // no resize may touch the terminal once it is closed
	if ptmx != nil {
		finishTerminal(ptmx)
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		code = 1
	}
	sess.Exit(code)
	// let the client read the exit before the close
	conn.(interface{ CloseWrite() error }).CloseWrite()
}

// startWithInput starts cmd with in as its standard input, through a pipe
// this agent copies into rather than one exec.Cmd owns: Cmd.Wait waits for
// its own input copier, which sits in a read of the client's stdin (a
// terminal nobody types into, a pipe nobody closes) after the command has
// exited, so the exec would end only at the caller's next keystroke. Our
// copier is not waited for; the session closes its reader when the command
// is done, and the copier ends there.
func startWithInput(cmd *exec.Cmd, in io.Reader) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdin = pr
	err = cmd.Start()
	pr.Close() // the command holds its own copy
	if err != nil {
		pw.Close()
		return err
	}
	go func() {
		io.Copy(pw, in) // EPIPE once the command stops reading: ignored
		pw.Close()      // the caller's end of input is the command's
	}()
	return nil
}

// startOnTerminal starts cmd on a new pseudo-terminal and copies between
// it and the session.
func startOnTerminal(cmd *exec.Cmd, sess *stream.Session, size stream.Size) (*os.File, error) {
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: size.Rows, Cols: size.Cols})
	if err != nil {
		return nil, err
	}
	go io.Copy(ptmx, sess.Stdin())
	go io.Copy(sess.Stdout, ptmx)
	return ptmx, nil
}

// finishTerminal lets the last output through, then closes the terminal
// (a background process may hold it open forever).
func finishTerminal(ptmx *os.File) {
	time.Sleep(50 * time.Millisecond)
	ptmx.Close()
}

// terminateAll asks every process this user may signal to end, waits up
// to grace for them, and returns how many were still there.
func terminateAll(grace time.Duration) int {
	syscall.Kill(-1, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for {
		n := othersAlive()
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// othersAlive counts processes in the sandbox other than its init and
// this agent, from /proc.
func othersAlive() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == 1 || pid == self {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && isZombie(b) {
			continue
		}
		n++
	}
	return n
}

func isZombie(stat []byte) bool {
	// "pid (comm) S ...": the state follows the last ')'
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] == 'Z'
		}
	}
	return false
}

// ListenAndServe serves on a unix socket at path (replacing a stale one)
// until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, path string) error {
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); l.Close() }()
	return s.Serve(l)
}
