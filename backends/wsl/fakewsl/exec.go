package fakewsl

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// exec runs a command "in" a distro: -d NAME [-u USER] [--cd DIR]
// (--exec|--) CMD ARGS...
func (f *fake) exec(args []string) int {
	var name, dir string
	i := 0
	for ; i < len(args); i++ {
		switch args[i] {
		case "-d", "--distribution":
			i++
			name = args[i]
		case "-u", "--user":
			i++
		case "--cd":
			i++
			dir = args[i]
		case "--exec", "-e", "--":
			i++
			goto run
		default:
			return f.say(1, "fake wsl.exe: unsupported argument %q", args[i])
		}
	}
run:
	argv := args[i:]
	d, err := f.load(name)
	if err != nil {
		return f.noSuchDistro()
	}
	if len(argv) == 0 {
		return f.say(1, "fake wsl.exe: no command (an interactive shell is not faked)")
	}
	rootfs := filepath.Join(d.Dir, "rootfs")
	cwd, err := f.hostDir(rootfs, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chdir(%s) failed %v\n", dir, err)
		return 1
	}
	// mark this command running in the distro until it ends
	run := filepath.Join(f.home, "run", name)
	os.MkdirAll(run, 0o700)
	mark := filepath.Join(run, strconv.Itoa(os.Getpid()))
	os.WriteFile(mark, nil, 0o600)
	defer os.Remove(mark)

	switch filepath.Base(filepath.ToSlash(argv[0])) {
	case "true":
		return 0
	case "sleep":
		n, _ := strconv.Atoi(argv[len(argv)-1])
		waitTerm(time.Duration(n) * time.Second)
		return 0
	case "kill":
		// kill -s TERM -1: every other command of this distro
		for _, pid := range f.live(name) {
			if pid != os.Getpid() {
				kill(pid, false)
			}
		}
		return 0
	}
	prog := argv[0]
	if _, err := os.Stat(prog); err != nil {
		prog = filepath.Join(rootfs, filepath.FromSlash(argv[0]))
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = cwd, os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "<3>WSL (1) ERROR: CreateProcessParseCommon:%v\n", err)
		return 1
	}
	stop := relaySignals(cmd.Process)
	err = cmd.Wait()
	stop()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		return 128 + signalOf(exit)
	}
	if err != nil {
		return 1
	}
	return 0
}

// hostDir is the host folder a distro path stands for: /workspace is
// what the distro's fstab mounts there, the rest lies under rootfs.
func (f *fake) hostDir(rootfs, dir string) (string, error) {
	if dir == "" || dir == "~" {
		dir = "/"
	}
	if dir == "/workspace" || strings.HasPrefix(dir, "/workspace/") {
		src, err := workspaceSource(filepath.Join(rootfs, "etc", "fstab"))
		if err != nil {
			return "", err
		}
		dir = filepath.Join(src, filepath.FromSlash(strings.TrimPrefix(dir, "/workspace")))
	} else {
		dir = filepath.Join(rootfs, filepath.FromSlash(dir))
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return dir, nil
}

// workspaceSource reads the drvfs line for /workspace out of fstab.
func workspaceSource(fstab string) (string, error) {
	file, err := os.Open(fstab)
	if err != nil {
		return "", err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 && fields[1] == "/workspace" && fields[2] == "drvfs" {
			r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n")
			return filepath.FromSlash(r.Replace(fields[0])), nil
		}
	}
	return "", errors.New("no drvfs mount of /workspace in /etc/fstab")
}
