package bubblewrap

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"sandboxdesk/backends"
)

// prepare lays out the sandbox's folder before a start. The folder itself
// and its etc are the controller's, so nothing the sandbox user does can
// redirect what the controller writes there (uid, etc/*); home and tmp
// are the sandbox user's. bwrap's pid file, log and the agent's socket
// are in the control folder (see ctlDir). As root it returns
// how the sandbox runs: its own host uid, and its workspace idmapped to
// it.
func (b *Backend) prepare(ctx context.Context, spec backends.Spec) (*sandboxRun, error) {
	me := ids{uid: os.Geteuid(), gid: os.Getegid()}
	stateMode := os.FileMode(0o700)
	if b.asRoot {
		stateMode = 0o711 // the sandbox user passes through to its own folders
	}
	if err := ownFolder(spec.StateDir, me, stateMode); err != nil {
		return nil, fmt.Errorf("prepare sandbox folder: %w", err)
	}
	var run *sandboxRun
	user := me
	if b.asRoot {
		stateDir, _ := filepath.Abs(spec.StateDir)
		uid, err := b.uids.acquire(stateDir)
		if err != nil {
			return nil, fmt.Errorf("prepare sandbox: %w", err)
		}
		user = ids{uid: uid, gid: uid}
		run = &sandboxRun{user: user}
	}
	for _, d := range []struct {
		name  string
		owner ids
		mode  os.FileMode
	}{{"home", user, 0o700}, {"tmp", user, 0o777 | os.ModeSticky}, {"etc", me, 0o755}} {
		p := filepath.Join(spec.StateDir, d.name)
		if err := ownFolder(p, d.owner, d.mode); err != nil {
			return nil, fmt.Errorf("prepare sandbox folder: %w", err)
		}
		if err := ownTree(p, d.owner); err != nil {
			return nil, fmt.Errorf("prepare sandbox folder: %w", err)
		}
	}
	for name, content := range etcFiles(spec.Name, spec.Network) {
		if err := replaceFile(filepath.Join(spec.StateDir, "etc", name), []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("prepare sandbox /etc: %w", err)
		}
	}
	if run != nil {
		if err := b.givePerson(ctx, spec, run); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// givePerson keeps a root controller's workspace its person's: the person
// owns it and may reach it on the host, and the sandbox works in it
// through an idmapped mount. Without one the sandbox's own uid could not
// work in the person's folder at all, so the start fails and says why.
func (b *Backend) givePerson(ctx context.Context, spec backends.Spec, run *sandboxRun) error {
	os.Lchown(spec.Workspace, b.person.uid, b.person.gid)
	if b.person.uid != 0 {
		for d := filepath.Dir(spec.Workspace); within(b.root, d); d = filepath.Dir(d) {
			if err := letPass(d, b.person.uid); err != nil {
				b.tell(ctx, spec.ID, "the workspace's owner cannot reach it on the host: "+err.Error())
			}
			if d == filepath.Clean(b.root) {
				break
			}
		}
		if closed := closedTo(filepath.Dir(filepath.Clean(b.root)), b.person.uid); closed != "" {
			b.tell(ctx, spec.ID, fmt.Sprintf("the workspace's owner (uid %d) cannot reach it on the host: %s is closed to them; pick a --root they can pass through", b.person.uid, closed))
		}
	}
	userns, err := b.mapping(run.user)
	var tree *os.File
	if err == nil {
		tree, err = idmappedTree(spec.Workspace, userns)
	}
	if err != nil {
		return fmt.Errorf("%w: as root, sandboxdesk maps each sandbox's own host user onto the workspace's owner, "+
			"which needs idmapped mounts (Linux 5.12 or later, on ext4, xfs, btrfs or tmpfs); "+
			"run sandboxdesk as the workspace's user instead", err)
	}
	run.workspace = tree
	return nil
}

// ownFolder makes path a real folder (not a link left in its place)
// owned by owner with mode.
func ownFolder(path string, owner ids, mode os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", path)
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(path, owner.uid, owner.gid); err != nil {
			return err
		}
	}
	return os.Chmod(path, mode)
}

// ownTree gives everything below path to owner when path has just
// changed hands (a sandbox that got a new host uid, or one made by a
// version that ran every sandbox as nobody). No link is followed, and no
// process of the sandbox runs while it starts; nothing else reaches the
// folder, which is inside the root (0700).
func ownTree(path string, owner ids) error {
	if os.Geteuid() != 0 {
		return nil
	}
	if !treeHasOthers(path, owner) {
		return nil
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		return os.Lchown(p, owner.uid, owner.gid)
	})
}

// treeHasOthers reports whether a direct entry of path is not owner's: a
// cheap look that tells a folder handed over only at its top.
func treeHasOthers(path string, owner ids) bool {
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != owner.uid {
			return true
		}
	}
	return false
}

// mapping is the user namespace that maps the person onto the sandbox
// user, made once per sandbox user while this backend lives.
func (b *Backend) mapping(user ids) (*os.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f, ok := b.mappings[user.uid]; ok {
		return f, nil
	}
	f, err := b.takeAheadLocked(user)
	if err != nil {
		return nil, err
	}
	if b.mappings == nil {
		b.mappings = map[int]*os.File{}
	}
	b.mappings[user.uid] = f
	return f, nil
}

// forgetMapping takes the user namespace of a sandbox user that is freed
// out of the sandboxes' mappings.
func (b *Backend) forgetMapping(stateDir string) {
	uid, ok := readUIDFile(stateDir)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if f, ok := b.mappings[uid]; ok {
		// kept as the one made ahead: the uid just freed is the one the
		// next new sandbox is likely to get (see mapAhead)
		delete(b.mappings, uid)
		if b.ahead.ns != nil {
			b.ahead.ns.Close()
		}
		b.ahead = aheadMapping{uid: uid, ns: f}
	}
}

// closedTo finds the first folder from / down to dir that uid may not
// pass through by its mode (neither theirs nor searchable by others).
func closedTo(dir string, uid int) string {
	var path []string
	for d := dir; ; d = filepath.Dir(d) {
		path = append([]string{d}, path...)
		if d == filepath.Dir(d) {
			break
		}
	}
	for _, d := range path {
		fi, err := os.Stat(d)
		if err != nil {
			return d
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if ok && int(st.Uid) != uid && fi.Mode().Perm()&0o001 == 0 {
			return d
		}
	}
	return ""
}

// aheadMapping is a user namespace made for one uid before any sandbox
// has it (uid 0: none).
type aheadMapping struct {
	uid int
	ns  *os.File
}

// takeAheadLocked returns the mapping of user made ahead, or makes it
// now. b.mu is held.
func (b *Backend) takeAheadLocked(user ids) (*os.File, error) {
	if b.ahead.uid == user.uid && b.ahead.ns != nil {
		f := b.ahead.ns
		b.ahead = aheadMapping{}
		return f, nil
	}
	return mappedUserns(b.person, user)
}

// mapAhead makes, in the background, the workspace's id mapping for the
// uid the next new sandbox would get now: its holder process, a fork of
// the whole controller (~1 ms), is then off that start's path. A guess
// that proves wrong (another root took the uid) only costs the start
// the time it would have spent anyway. At most one such mapping is kept.
func (b *Backend) mapAhead() {
	b.mu.Lock()
	if b.aheadBusy {
		b.mu.Unlock()
		return
	}
	b.aheadBusy = true
	b.aheadDoing.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.aheadDoing.Done()
		uid := b.uids.next()
		var f *os.File
		if uid > 0 {
			b.mu.Lock()
			_, mapped := b.mappings[uid]
			done := mapped || b.ahead.uid == uid
			b.mu.Unlock()
			if !done {
				f, _ = mappedUserns(b.person, ids{uid: uid, gid: uid})
			}
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		b.aheadBusy = false
		if f == nil {
			return
		}
		if _, mapped := b.mappings[uid]; mapped {
			f.Close() // made for a sandbox meanwhile
			return
		}
		if b.ahead.ns != nil {
			b.ahead.ns.Close()
		}
		b.ahead = aheadMapping{uid: uid, ns: f}
	}()
}
