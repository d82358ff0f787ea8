package sandbox

// History the sandbox cannot erase (see docs/sandbox.md, "Git history").
//
// Inside every git dir of a writable root the plan binds objects/pack and
// packed-refs read-only (gitDirProtected); everything else in the git dir
// stays writable so that git add, commit, branch, stash, merge and rebase
// work. Landlock cannot narrow that: its rules only grant, and the
// workspace's rule grants removal beneath it, .git included. So the runner,
// outside the sandbox, moves what is not yet in those read-only files into
// them before each confined command (and again after it): the loose
// objects into a new pack (keepObjects) and the loose branch, tag, remote
// and notes refs into packed-refs (keepRefs). Whatever a command then
// deletes, truncates or rewrites, the history as of its start is in files
// it can only read; a loose ref it breaks (emptied, garbage, a link, a
// missing object) is removed after it, so the packed value shows again.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// GitHistoryKept is how Support.GitHistory describes the protection.
const GitHistoryKept = "kept: loose objects and refs are packed (read-only inside) before and after each command; deleting refs and repacking fail inside"

// keepHistory moves the loose objects and refs of the git dir gitDir into
// its pack directory and packed-refs. It reports whether it created one of
// them (a plan made before it did not bind it read-only). A git dir
// without objects/ (a linked worktree's private dir) has nothing to keep.
// It fails when the history cannot be put out of reach; the caller then
// does not run the command. Every file is reached without following a
// link (see history_fs_linux.go).
func keepHistory(gitDir string) (symrefs []gitHead, created bool, err error) {
	gitFD, err := openNoLinks(gitDir)
	if err != nil {
		return nil, false, nil // gone, or reached through a link: not a git dir the plan found
	}
	defer unix.Close(gitFD)
	objects, err := openDirAt(gitFD, "objects")
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("sandbox: keep git history %s: %w", gitDir, err)
	}
	f := os.NewFile(uintptr(objects), gitDir+"/objects")
	defer f.Close()
	pack, created, err := keepObjects(gitFD, gitDir, f)
	if err != nil {
		return nil, false, fmt.Errorf("sandbox: keep git history %s: %w", gitDir, err)
	}
	defer unix.Close(pack)
	if kindAt(gitFD, "refs") != unix.S_IFDIR {
		// A link or a file: git does not take it for a repository (after
		// a command, restoreHeads has made refs a directory again).
		return nil, created, nil
	}
	objs := openObjectStore(objects, pack)
	defer objs.close()
	symrefs, c, err := keepRefs(gitFD, gitDir, objs)
	if err != nil {
		return nil, false, fmt.Errorf("sandbox: keep git history %s: %w", gitDir, err)
	}
	return symrefs, created || c, nil
}

// keepGitDirs runs keepHistory on each git dir (the plan's heads' dirs);
// it returns the symbolic refs it found, which restoreHeads puts back
// after the command.
func keepGitDirs(heads []gitHead) (symrefs []gitHead, created bool, err error) {
	if len(heads) == 0 {
		return nil, false, nil
	}
	// One at a time in this process: commands started together in one
	// workspace would otherwise race for the same locks.
	keepMu.Lock()
	defer keepMu.Unlock()
	for _, h := range heads {
		s, c, err := keepHistory(filepath.Dir(h.path))
		if err != nil {
			return nil, false, err
		}
		symrefs = append(symrefs, s...)
		created = created || c
	}
	return symrefs, created, nil
}

var keepMu sync.Mutex

// isHex reports a lowercase hexadecimal string.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}

// looseName is a loose object found: its fan-out dir and file name.
type looseName struct{ dir, file string }

// listLoose lists the loose objects of objects (the fan-out dirs' files
// whose names complete an object name of hashLen bytes); symlinks are not
// followed.
func listLoose(objects *os.File, hashLen int) ([]looseName, error) {
	names, err := objects.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []looseName
	for _, d := range names {
		if len(d) != 2 || !isHex(d) {
			continue
		}
		fd, err := unix.Openat(int(objects.Fd()), d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			// A link or a file where git keeps objects: git would read
			// through it; no history is in it.
			_ = unix.Unlinkat(int(objects.Fd()), d, 0)
		}
		if err != nil {
			continue
		}
		sub := os.NewFile(uintptr(fd), d)
		files, err := sub.Readdirnames(-1)
		sub.Close()
		if err != nil {
			return nil, err
		}
		for _, n := range files {
			if len(n) == 2*hashLen-2 && isHex(n) {
				out = append(out, looseName{d, n})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir+out[i].file < out[j].dir+out[j].file })
	return out, nil
}

// packTypes are the pack format's object type numbers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

// packedObject is an object written to the new pack.
type packedObject struct {
	name   []byte
	crc    uint32
	offset uint64
	loose  looseName
}

// keepObjects writes every valid loose object of the git dir into a new
// pack in objects/pack (with its index), then removes the loose copies. A
// file that is not a valid object of the repository's hash function (its
// content does not hash to its name) is left alone: it is no history. It
// returns objects/pack opened, and whether it had to make it.
func keepObjects(gitFD int, gitDir string, objects *os.File) (pack int, created bool, err error) {
	objFD := int(objects.Fd())
	switch kindAt(objFD, "pack") {
	case 0:
		if err := unix.Mkdirat(objFD, "pack", 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, false, err
		}
		created = true
	case unix.S_IFDIR:
	default:
		return -1, false, fmt.Errorf("%s/objects/pack is not a directory: git keeps its packs there; remove it", gitDir)
	}
	if pack, err = openDirAt(objFD, "pack"); err != nil {
		return -1, false, err
	}
	hashLen, err := objectHashLen(gitFD, gitDir)
	if err == nil {
		err = packLooseObjects(objects, pack, hashLen)
	}
	if err != nil {
		unix.Close(pack)
		return -1, false, err
	}
	return pack, created, nil
}

// objectHashLen is the length of the repository's object names in bytes:
// sha256's when its config says extensions.objectFormat = sha256, sha1's
// otherwise (or without a config). The config, not the loose objects,
// says it: a command could drop an object of the other function first.
func objectHashLen(gitFD int, gitDir string) (int, error) {
	data, err := readFileAt(gitFD, "config", maxConfig)
	if err != nil {
		if kindAt(gitFD, "config") == 0 {
			return sha1.Size, nil
		}
		return 0, fmt.Errorf("read %s/config: %w", gitDir, err)
	}
	if configObjectFormat(data) == "sha256" {
		return sha256.Size, nil
	}
	return sha1.Size, nil
}

// configObjectFormat is extensions.objectFormat in the git config data
// ("" when unset).
func configObjectFormat(data []byte) string {
	section, format := "", ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			section = strings.ToLower(strings.TrimSpace(name))
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if ok && section == "extensions" && strings.EqualFold(strings.TrimSpace(key), "objectformat") {
			val, _, _ = strings.Cut(val, "#")
			val, _, _ = strings.Cut(val, ";")
			format = strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`))
		}
	}
	return format
}

// packLooseObjects packs the loose objects whose names are hashLen bytes
// long into a new pack in the directory pack.
func packLooseObjects(objects *os.File, pack, hashLen int) error {
	loose, err := listLoose(objects, hashLen)
	if err != nil || len(loose) == 0 {
		return err
	}
	newHash := sha1.New
	if hashLen == sha256.Size {
		newHash = sha256.New
	}
	tmp, tmpName, err := createTempAt(pack, "tmp_pack_oceancode_", 0o444)
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		_ = unix.Unlinkat(pack, tmpName, 0)
	}()
	var objs []packedObject
	w := &countWriter{w: bufio.NewWriterSize(tmp, 64<<10), n: 12}
	if _, err := w.w.Write(make([]byte, 12)); err != nil { // the header, written last
		return err
	}
	zw, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed) // one compressor for all: each is ~1 MB
	for _, l := range loose {
		o, ok, err := packLoose(objects, l, w, zw, newHash)
		if err != nil {
			return err
		}
		if ok {
			objs = append(objs, o)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	if err := w.w.(*bufio.Writer).Flush(); err != nil {
		return err
	}
	sum, err := finishPack(tmp, len(objs), newHash)
	if err != nil {
		return err
	}
	base := "pack-" + hex.EncodeToString(sum)
	idx, err := writeIndex(pack, objs, sum, newHash)
	if err != nil {
		return err
	}
	// The pack first, then its index: git uses a pack once its index is there.
	if err := unix.Renameat(pack, tmpName, pack, base+".pack"); err != nil {
		_ = unix.Unlinkat(pack, idx, 0)
		return err
	}
	if err := unix.Renameat(pack, idx, pack, base+".idx"); err != nil {
		_ = unix.Unlinkat(pack, idx, 0)
		return err
	}
	if err := unix.Fsync(pack); err != nil {
		return err
	}
	removeLoose(objects, objs)
	return nil
}

// removeLoose removes the loose copies of packed objects and the fan-out
// dirs left empty (git's prune-packed).
func removeLoose(objects *os.File, objs []packedObject) {
	dirs := map[string]bool{}
	for _, o := range objs {
		_ = unix.Unlinkat(int(objects.Fd()), o.loose.dir+"/"+o.loose.file, 0)
		dirs[o.loose.dir] = true
	}
	for d := range dirs {
		_ = unix.Unlinkat(int(objects.Fd()), d, unix.AT_REMOVEDIR) // fails when not empty
	}
}

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// maxLooseHeader bounds a loose object's "type size\0" header.
const maxLooseHeader = 32

// packLoose appends the loose object l to the pack as one entry; ok is
// false (and nothing is appended) when l is not a valid object.
func packLoose(objects *os.File, l looseName, w *countWriter, zw *zlib.Writer, newHash func() hash.Hash) (o packedObject, ok bool, err error) {
	fd, err := unix.Openat(int(objects.Fd()), l.dir+"/"+l.file, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return o, false, nil
	}
	f := os.NewFile(uintptr(fd), l.file)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return o, false, nil
	}
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return o, false, nil
	}
	br := bufio.NewReader(zr)
	head, err := br.ReadSlice(0)
	if err != nil || len(head) > maxLooseHeader {
		return o, false, nil
	}
	typ, sizeStr, _ := strings.Cut(string(head[:len(head)-1]), " ")
	size, err := strconv.ParseUint(sizeStr, 10, 63)
	if err != nil || packTypes[typ] == 0 {
		return o, false, nil
	}
	want, _ := hex.DecodeString(l.dir + l.file)
	// Verify first (the name must be the content's hash), then write: a
	// second read costs less than undoing a half-written entry.
	h := newHash()
	h.Write(head)
	if n, err := io.Copy(h, br); err != nil || uint64(n) != size || !bytes.Equal(h.Sum(nil), want) {
		return o, false, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return o, false, err
	}
	if err := zr.(zlib.Resetter).Reset(bufio.NewReader(f), nil); err != nil {
		return o, false, err
	}
	br.Reset(zr)
	if _, err := br.ReadSlice(0); err != nil {
		return o, false, err
	}
	o = packedObject{name: want, offset: w.n, loose: l}
	crc := crc32.NewIEEE()
	cw := io.MultiWriter(w, crc)
	if _, err := cw.Write(entryHeader(packTypes[typ], size)); err != nil {
		return o, false, err
	}
	zw.Reset(cw)
	if n, err := io.Copy(zw, br); err != nil || uint64(n) != size {
		return o, false, fmt.Errorf("loose object %s%s changed while packed", l.dir, l.file)
	}
	if err := zw.Close(); err != nil {
		return o, false, err
	}
	o.crc = crc.Sum32()
	return o, true, nil
}

// entryHeader is a pack entry's type and size header.
func entryHeader(typ byte, size uint64) []byte {
	b := []byte{typ<<4 | byte(size&15)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

// finishPack writes the pack header and appends its checksum, which it
// returns; the file is synced.
func finishPack(f *os.File, count int, newHash func() hash.Hash) ([]byte, error) {
	hdr := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[8:], uint32(count))
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	h := newHash()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	sum := h.Sum(nil)
	if _, err := f.Write(sum); err != nil {
		return nil, err
	}
	return sum, f.Sync()
}

// writeIndex writes the version 2 index of objs for the pack with
// checksum sum to a temporary file in the directory dir and returns its
// name.
func writeIndex(dir int, objs []packedObject, sum []byte, newHash func() hash.Hash) (string, error) {
	sort.Slice(objs, func(i, j int) bool { return bytes.Compare(objs[i].name, objs[j].name) < 0 })
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fan [256]uint32
	for _, o := range objs {
		fan[o.name[0]]++
	}
	var total uint32
	for i := range fan {
		total += fan[i]
		binary.Write(&b, binary.BigEndian, total)
	}
	for _, o := range objs {
		b.Write(o.name)
	}
	for _, o := range objs {
		binary.Write(&b, binary.BigEndian, o.crc)
	}
	var large []uint64
	for _, o := range objs {
		if o.offset < 1<<31 {
			binary.Write(&b, binary.BigEndian, uint32(o.offset))
			continue
		}
		binary.Write(&b, binary.BigEndian, uint32(1<<31|len(large)))
		large = append(large, o.offset)
	}
	for _, off := range large {
		binary.Write(&b, binary.BigEndian, off)
	}
	b.Write(sum)
	h := newHash()
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	f, name, err := createTempAt(dir, "tmp_idx_oceancode_", 0o444)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = unix.Unlinkat(dir, name, 0)
		return "", err
	}
	return name, nil
}
