package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// keptRefs are the ref namespaces whose loose refs keepRefs packs: the
// history (branches, tags, remote-tracking branches, notes). Others stay
// loose: refs/stash (git stash drop deletes it), refs/bisect (bisect reset
// does), a rebase's refs/rewritten, per-worktree refs.
var keptRefs = []string{"refs/heads", "refs/tags", "refs/remotes", "refs/notes"}

// looseRef is a loose ref file: its name ("refs/heads/main"), content, and
// whether it is a valid direct ref to an object the repository has.
type looseRef struct {
	name string
	data []byte
	ok   bool
}

// keepRefs packs the valid loose refs under keptRefs into packed-refs and
// removes the loose files, and removes a broken loose ref (not a regular
// file, not a name of an object the repository has) that hides a packed
// one, so the packed value shows again. Symbolic refs stay loose. It
// reports whether it created packed-refs.
func keepRefs(gitDir string) (symrefs []gitHead, created bool, err error) {
	loose, symrefs, err := listLooseRefs(gitDir)
	if err != nil || len(loose) == 0 {
		return symrefs, false, err
	}
	created, err = packRefs(gitDir, loose)
	return symrefs, created, err
}

// packRefs packs the valid ones of loose and removes them, and the
// broken ones that hide a packed ref (see keepRefs).
func packRefs(gitDir string, loose []looseRef) (bool, error) {
	path := gitDir + "/packed-refs"
	lock := path + ".lock"
	fd, err := lockFile(lock)
	if err != nil {
		return false, err
	}
	lf := os.NewFile(uintptr(fd), lock)
	done := false
	defer func() {
		lf.Close()
		if !done {
			os.Remove(lock)
		}
	}()
	packed, existed, err := readPackedRefs(path)
	if err != nil {
		return false, err
	}
	var pack, drop []looseRef
	for _, r := range loose {
		switch {
		case r.ok:
			pack = append(pack, r)
			packed[r.name] = packedRef{value: strings.TrimSpace(string(r.data))}
		case packed[r.name].value != "":
			drop = append(drop, r)
		}
	}
	if len(pack) == 0 && len(drop) == 0 {
		return false, nil
	}
	if len(pack) > 0 {
		if _, err := lf.Write(formatPackedRefs(packed)); err != nil {
			return false, err
		}
		if err := lf.Sync(); err != nil {
			return false, err
		}
		if err := os.Rename(lock, path); err != nil {
			return false, err
		}
		done = true
	}
	for _, r := range append(pack, drop...) {
		removeLooseRef(gitDir, r)
	}
	return len(pack) > 0 && !existed, nil
}

// lockTimeout is how long lockFile waits for another git's lock, as git
// waits for packed-refs.lock (core.packedRefsTimeout's default).
const lockTimeout = time.Second

// lockFile creates the lock file path, waiting up to lockTimeout while
// another process holds it.
func lockFile(path string) (int, error) {
	deadline := time.Now().Add(lockTimeout)
	for wait := time.Millisecond; ; wait *= 2 {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if !errors.Is(err, unix.EEXIST) {
			return fd, err
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("%s exists: another git is updating the refs; if none is running, remove it", path)
		}
		time.Sleep(wait)
	}
}

// removeLooseRef removes the loose ref r under its own lock, if it still
// holds what was read, and the directories it leaves empty below its
// namespace.
func removeLooseRef(gitDir string, r looseRef) {
	p := gitDir + "/" + r.name
	lfd, err := unix.Open(p+".lock", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return // git holds it: it is changing the ref anyway
	}
	defer func() {
		unix.Close(lfd)
		os.Remove(p + ".lock")
	}()
	if now, ok := readLooseRef(p); ok == (r.data != nil) && bytes.Equal(now, r.data) {
		os.Remove(p)
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		rel := strings.TrimPrefix(d, gitDir+"/")
		if !strings.Contains(strings.TrimPrefix(rel, "refs/"), "/") || unix.Rmdir(d) != nil {
			return // a namespace's own dir (refs/heads) stays
		}
	}
}

// readLooseRef reads a loose ref file; ok is false for anything but a
// regular file (its data is then nil).
func readLooseRef(p string) ([]byte, bool) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil, false
	}
	b := make([]byte, 4097)
	n, _ := f.Read(b)
	return b[:n], true
}

// listLooseRefs lists the loose refs under keptRefs, and apart the
// symbolic ones; lock files are left out.
func listLooseRefs(gitDir string) (out []looseRef, symrefs []gitHead, err error) {
	for _, ns := range keptRefs {
		err := filepath.WalkDir(gitDir+"/"+ns, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || strings.HasSuffix(p, ".lock") {
				return nil
			}
			data, regular := readLooseRef(p)
			if bytes.HasPrefix(data, []byte("ref:")) {
				if validRefContent(data) {
					symrefs = append(symrefs, gitHead{p, data})
				}
				return nil
			}
			name := strings.TrimPrefix(p, gitDir+"/")
			v := strings.TrimSpace(string(data))
			out = append(out, looseRef{name: name, data: data, ok: regular && hasObject(gitDir, v)})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return out, symrefs, nil
}

// packedRef is one packed-refs entry: the value and its peeled line.
type packedRef struct{ value, peeled string }

// readPackedRefs parses packed-refs (missing: empty; existed says which).
func readPackedRefs(path string) (map[string]packedRef, bool, error) {
	out := map[string]packedRef{}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	last := ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '^' && last != "":
			r := out[last]
			r.peeled = line[1:]
			out[last] = r
		default:
			v, name, ok := strings.Cut(line, " ")
			if !ok || !isHex(v) {
				return nil, false, fmt.Errorf("%s: unreadable line %q", path, line)
			}
			out[name] = packedRef{value: v}
			last = name
		}
	}
	return out, true, nil
}

// formatPackedRefs writes packed-refs sorted, with the peeled lines it
// has; it claims no peeling trait, so git peels what it lacks itself.
func formatPackedRefs(refs map[string]packedRef) []byte {
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("# pack-refs with: sorted \n")
	for _, n := range names {
		r := refs[n]
		b.WriteString(r.value + " " + n + "\n")
		if r.peeled != "" {
			b.WriteString("^" + r.peeled + "\n")
		}
	}
	return b.Bytes()
}

// hasObject reports whether the repository at gitDir has the object named
// by the hex string name: as a loose file or in one of its packs' indexes.
func hasObject(gitDir, name string) bool {
	if (len(name) != 40 && len(name) != 64) || !isHex(name) {
		return false
	}
	if fi, err := os.Lstat(gitDir + "/objects/" + name[:2] + "/" + name[2:]); err == nil && fi.Mode().IsRegular() {
		return true
	}
	want, _ := hex.DecodeString(name)
	idxs, _ := filepath.Glob(gitDir + "/objects/pack/pack-*.idx")
	for _, idx := range idxs {
		if indexHas(idx, want) {
			return true
		}
	}
	return false
}

// indexHas looks name up in a version 2 pack index (binary search over
// its sorted names, reading only the entries it compares).
func indexHas(idx string, name []byte) bool {
	f, err := os.Open(idx)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [8 + 256*4]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil || !bytes.Equal(hdr[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return false
	}
	fan := func(i int) int64 { return int64(binary.BigEndian.Uint32(hdr[8+4*i:])) }
	lo, hi := int64(0), fan(int(name[0]))
	if name[0] > 0 {
		lo = fan(int(name[0]) - 1)
	}
	buf := make([]byte, len(name))
	for lo < hi {
		mid := (lo + hi) / 2
		if _, err := f.ReadAt(buf, int64(len(hdr))+mid*int64(len(name))); err != nil {
			return false
		}
		switch c := bytes.Compare(buf, name); {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}
