package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
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

// Bounds of what the keeper reads of refs.
const (
	maxRefFile    = 4096     // a loose ref or HEAD
	maxRefDepth   = 32       // directory levels below a namespace
	maxPackedRefs = 1 << 30  // packed-refs
	maxConfig     = 16 << 20 // a git dir's config
)

// looseRef is a loose ref file: its directory below the git dir
// ("refs/heads"), its file name, its full name ("refs/heads/main"), its
// content (nil: not a regular file), and whether it is a valid direct ref
// to an object the repository has.
type looseRef struct {
	dir, base, name string
	data            []byte
	ok              bool
}

// keepRefs packs the valid loose refs under keptRefs into packed-refs and
// removes the loose files, and removes a broken loose ref (not a regular
// file, not a name of an object the repository has) that hides a packed
// one, so the packed value shows again; links, FIFOs, sockets and devices
// in those namespaces (git never makes them; it would read through a link
// or hang on a FIFO), and files whose names git refuses as ref names, are
// removed. Symbolic refs stay loose. A missing packed-refs is created (empty at
// least), so that the plan binds one read-only. It reports whether it
// created packed-refs.
func keepRefs(gitFD int, gitDir string, objs *objectStore) (symrefs []gitHead, created bool, err error) {
	loose, symrefs, err := listLooseRefs(gitFD, gitDir, objs)
	if err != nil {
		return nil, false, err
	}
	created, err = packRefs(gitFD, gitDir, loose)
	return symrefs, created, err
}

// packRefs packs the valid ones of loose and removes them, and the
// broken ones that hide a packed ref (see keepRefs). The broken ones go
// first and need no lock (what git holding one would write replaces the
// file by a rename, and a broken ref is never what it read): a lock a
// command left behind does not keep one in place.
func packRefs(gitFD int, gitDir string, loose []looseRef) (created bool, err error) {
	packed, existed, err := readPackedRefs(gitFD, gitDir)
	if err != nil {
		return false, err
	}
	var pack []looseRef
	for _, r := range loose {
		switch {
		case r.ok:
			pack = append(pack, r)
		case packed[r.name].value != "":
			removeLooseRef(gitFD, r, false)
		}
	}
	if len(pack) == 0 && existed {
		return false, nil
	}
	lock, err := lockFileAt(gitFD, gitDir, "packed-refs.lock")
	if err != nil {
		return false, err
	}
	done := false
	defer func() {
		lock.Close()
		if !done {
			_ = unix.Unlinkat(gitFD, "packed-refs.lock", 0)
		}
	}()
	if packed, existed, err = readPackedRefs(gitFD, gitDir); err != nil {
		return false, err
	}
	for _, r := range pack {
		packed[r.name] = packedRef{value: strings.TrimSpace(string(r.data))}
	}
	if _, err := lock.Write(formatPackedRefs(packed)); err != nil {
		return false, err
	}
	if err := lock.Sync(); err != nil {
		return false, err
	}
	if err := unix.Renameat(gitFD, "packed-refs.lock", gitFD, "packed-refs"); err != nil {
		return false, err
	}
	done = true
	for _, r := range pack {
		removeLooseRef(gitFD, r, true)
	}
	return !existed, nil
}

// lockTimeout is how long lockFileAt waits for another git's lock, as git
// waits for packed-refs.lock (core.packedRefsTimeout's default).
const lockTimeout = time.Second

// lockFileAt creates the lock file name in the git dir, waiting up to
// lockTimeout while another process holds it.
func lockFileAt(gitFD int, gitDir, name string) (*os.File, error) {
	deadline := time.Now().Add(lockTimeout)
	for wait := time.Millisecond; ; wait *= 2 {
		fd, err := unix.Openat(gitFD, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s/%s exists: another git is updating the refs; if none is running, remove it", gitDir, name)
		}
		time.Sleep(wait)
	}
}

// removeLooseRef removes the loose ref r if it still holds what was read
// (under its own lock when lock is set: a valid ref git may be changing),
// and the directories it leaves empty below its namespace.
func removeLooseRef(gitFD int, r looseRef, lock bool) {
	dir, err := openBelow(gitFD, r.dir, false, false)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	if lock {
		lfd, err := unix.Openat(dir, r.base+".lock", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return // git holds it: it is changing the ref anyway
		}
		defer func() {
			unix.Close(lfd)
			_ = unix.Unlinkat(dir, r.base+".lock", 0)
		}()
	}
	if now, ok := readSmallAt(dir, r.base, maxRefFile); ok == (r.data != nil) && bytes.Equal(now, r.data) {
		_ = unix.Unlinkat(dir, r.base, 0)
	}
	removeEmptyRefDirs(gitFD, r.dir)
}

// removeEmptyRefDirs removes the directory dir below the git dir and its
// parents while they are empty, down to a namespace's own dir
// (refs/heads), which stays.
func removeEmptyRefDirs(gitFD int, dir string) {
	for ; strings.Contains(strings.TrimPrefix(dir, "refs/"), "/"); dir = path.Dir(dir) {
		parent, err := openBelow(gitFD, path.Dir(dir), false, false)
		if err != nil {
			return
		}
		err = unix.Unlinkat(parent, path.Base(dir), unix.AT_REMOVEDIR)
		unix.Close(parent)
		if err != nil {
			return
		}
	}
}

// listLooseRefs lists the loose refs under keptRefs, and apart the
// symbolic ones; lock files are left out, and what git never makes there
// (links, FIFOs, sockets, devices, files named as no ref can be) is
// removed.
func listLooseRefs(gitFD int, gitDir string, objs *objectStore) (out []looseRef, symrefs []gitHead, err error) {
	visit := func(dir int, dirRel, name string) {
		switch kindAt(dir, name) {
		case unix.S_IFREG:
		case 0:
			return
		default:
			_ = unix.Unlinkat(dir, name, 0)
			return
		}
		full := dirRel + "/" + name
		if strings.HasSuffix(name, ".lock") {
			return
		}
		if !validRefName(full) {
			// git reads it as a broken ref, and packing it would write
			// lines of its choosing into packed-refs.
			_ = unix.Unlinkat(dir, name, 0)
			removeEmptyRefDirs(gitFD, dirRel)
			return
		}
		data, regular := readSmallAt(dir, name, maxRefFile)
		if bytes.HasPrefix(data, []byte("ref:")) {
			if validRefContent(data) {
				symrefs = append(symrefs, gitHead{path: gitDir + "/" + full, data: data, dir: gitDir})
			}
			return
		}
		v := strings.TrimSpace(string(data))
		out = append(out, looseRef{dir: dirRel, base: name, name: full, data: data, ok: regular && objs.has(v)})
	}
	for _, ns := range keptRefs {
		parent, err := openBelow(gitFD, path.Dir(ns), false, false)
		if err != nil {
			continue // refs is not a directory: restoreHeads makes one
		}
		err = walkRefs(parent, path.Dir(ns), path.Base(ns), 0, visit)
		unix.Close(parent)
		if err != nil {
			return nil, nil, err
		}
	}
	return out, symrefs, nil
}

// walkRefs calls visit for each entry below name in the directory dir
// (dirRel below the git dir) that is not a directory, depth first,
// following no link; a link where a directory could be is visited (and
// so removed).
func walkRefs(dir int, dirRel, name string, depth int, visit func(dir int, dirRel, name string)) error {
	if kindAt(dir, name) != unix.S_IFDIR {
		if depth > 0 {
			visit(dir, dirRel, name)
		} else if kindAt(dir, name) == unix.S_IFLNK {
			_ = unix.Unlinkat(dir, name, 0) // refs/heads as a link
		}
		return nil
	}
	if depth > maxRefDepth {
		return nil
	}
	sub, err := openDirAt(dir, name)
	if err != nil {
		return nil // changed meanwhile: the next pass sees it
	}
	defer unix.Close(sub)
	names, err := listAt(sub)
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		if err := walkRefs(sub, dirRel+"/"+name, n, depth+1, visit); err != nil {
			return err
		}
	}
	return nil
}

// validRefName reports a full ref name git accepts (its
// check_refname_format): no empty component, none starting with "." or
// ending with ".lock", no "..", no "@{", no control character, space or
// any of ~^:?*[\, and no trailing "." or "/". Any other name would add
// lines of its own to packed-refs, or lines git refuses.
func validRefName(name string) bool {
	if name == "@" || strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.HasSuffix(name, ".") {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c[0] == '.' || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	return true
}

// validRefContent reports what git reads as a ref: "ref: refs/…" or an
// object name.
func validRefContent(b []byte) bool {
	s := strings.TrimSpace(string(b))
	if t, ok := strings.CutPrefix(s, "ref: "); ok {
		return strings.HasPrefix(t, "refs/") && validRefName(t)
	}
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}

// readHeads records the HEAD of each git dir (paths ending in "/HEAD"),
// when it is a regular file holding a ref: a link is not read through, a
// FIFO or device not opened for reading, so a HEAD a command made one can
// neither bring a file from elsewhere into the git dir (restoreHeads
// would write it there) nor stop the next command from starting.
func readHeads(paths []string) []gitHead {
	var out []gitHead
	for _, p := range paths {
		fd, err := openNoLinks(filepath.Dir(p))
		if err != nil {
			continue
		}
		b, ok := readSmallAt(fd, "HEAD", maxRefFile)
		unix.Close(fd)
		if ok && validRefContent(b) {
			out = append(out, gitHead{path: p, data: b})
		}
	}
	return out
}

// restoreHeads puts back the HEAD of a git dir, and its refs directory,
// that the command removed, emptied or filled with something git cannot
// read (rm -rf .git removes what it can, those among it, and git then no
// longer takes the directory for a repository; the protected packs and
// packed refs still hold the history); a refs that is not a directory (a
// link) is replaced by one. Files are replaced, never written through a
// link, and no link on the way is followed.
func restoreHeads(heads []gitHead) {
	for _, h := range heads {
		fd, err := openNoLinks(filepath.Dir(h.path))
		if err != nil {
			continue
		}
		if k := kindAt(fd, "refs"); k != unix.S_IFDIR {
			if k != 0 && unix.Unlinkat(fd, "refs", 0) != nil {
				_ = moveAside(fd, "refs")
			}
			_ = unix.Mkdirat(fd, "refs", 0o755)
		}
		restoreRefAt(fd, "HEAD", h.data, false)
		unix.Close(fd)
	}
}

// restoreRefFiles puts back each symbolic ref (files as keepRefs found
// them) that is missing or no longer a symbolic ref git can read.
func restoreRefFiles(files []gitHead) {
	for _, h := range files {
		fd, err := openNoLinks(h.dir)
		if err != nil {
			continue
		}
		restoreRefAt(fd, strings.TrimPrefix(h.path, h.dir+"/"), h.data, true)
		unix.Close(fd)
	}
}

// restoreRefAt writes data to the file rel below the git dir unless it
// holds a ref git can read (symbolic: a symbolic ref); missing
// directories are made, links in their place replaced.
func restoreRefAt(gitFD int, rel string, data []byte, symbolic bool) {
	dir, err := openBelow(gitFD, path.Dir(rel), true, true)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	base := path.Base(rel)
	if now, ok := readSmallAt(dir, base, maxRefFile); ok && validRefContent(now) && (!symbolic || bytes.HasPrefix(now, []byte("ref: "))) {
		return
	}
	_ = replaceAt(dir, base, data)
}

// packedRef is one packed-refs entry: the value and its peeled line.
type packedRef struct{ value, peeled string }

// readPackedRefs parses the git dir's packed-refs (missing: empty;
// existed says which). One that is not a regular file is an error: git
// would read through a link, and cannot read a directory.
func readPackedRefs(gitFD int, gitDir string) (map[string]packedRef, bool, error) {
	out := map[string]packedRef{}
	switch kindAt(gitFD, "packed-refs") {
	case 0:
		return out, false, nil
	case unix.S_IFREG:
	default:
		return nil, false, fmt.Errorf("%s/packed-refs is not a regular file: remove it (the refs git had packed are lost) or put the file back", gitDir)
	}
	data, err := readFileAt(gitFD, "packed-refs", maxPackedRefs)
	if err != nil {
		return nil, false, fmt.Errorf("read %s/packed-refs: %w", gitDir, err)
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
				return nil, false, fmt.Errorf("%s/packed-refs: unreadable line %q", gitDir, line)
			}
			out[name] = packedRef{value: v}
			last = name
		}
	}
	return out, true, nil
}

// readFileAt reads the regular file name in the directory at (a link is
// not followed), of at most max bytes.
func readFileAt(at int, name string, max int64) ([]byte, error) {
	fd, err := unix.Openat(at, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = errors.New("too large")
	}
	return b, err
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

// objectStore answers whether a repository has an object: its objects
// directory and its packs' indexes, opened once per pass.
type objectStore struct {
	objects int
	idx     []*os.File
}

// openObjectStore opens the indexes of the packs in the directory pack.
func openObjectStore(objects, pack int) *objectStore {
	s := &objectStore{objects: objects}
	names, _ := listAt(pack)
	for _, n := range names {
		if !strings.HasPrefix(n, "pack-") || !strings.HasSuffix(n, ".idx") {
			continue
		}
		fd, err := unix.Openat(pack, n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			s.idx = append(s.idx, os.NewFile(uintptr(fd), n))
		}
	}
	return s
}

func (s *objectStore) close() {
	for _, f := range s.idx {
		f.Close()
	}
}

// has reports whether the repository has the object named by the hex
// string name: as a loose file or in one of its packs' indexes.
func (s *objectStore) has(name string) bool {
	if s == nil || (len(name) != 40 && len(name) != 64) || !isHex(name) {
		return false
	}
	if fan, err := openDirAt(s.objects, name[:2]); err == nil {
		k := kindAt(fan, name[2:])
		unix.Close(fan)
		if k == unix.S_IFREG {
			return true
		}
	}
	want, _ := hex.DecodeString(name)
	for _, idx := range s.idx {
		if indexHas(idx, want) {
			return true
		}
	}
	return false
}

// indexHas looks name up in a version 2 pack index (binary search over
// its sorted names, reading only the entries it compares).
func indexHas(f *os.File, name []byte) bool {
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
