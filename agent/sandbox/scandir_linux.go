//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"
)

// scanDir calls fn with the name and kind of each entry of the directory
// at path ("." and ".." left out), symlinks not followed, in the order the
// file system returns them. It reads the directory with getdents64 into
// buf and takes each entry's kind from d_type, so it makes no system call
// per entry (an lstat only where the file system reports DT_UNKNOWN);
// os.ReadDir costs twice as much for the same listing (a poller
// registration per open, a DirEntry and a string per entry, a sort). name
// is only valid during the call. It reports whether the whole directory
// was read (false: it could not be opened, or a read failed part way).
func scanDir(path string, buf []byte, fn func(name []byte, kind entryKind)) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if n <= 0 {
			return true
		}
		for b := buf[:n]; len(b) >= direntNameOff; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < direntNameOff || reclen > len(b) {
				return false
			}
			name := b[direntNameOff:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			typ := b[18]
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			fn(name, direntKind(fd, name, typ))
		}
	}
}

// direntNameOff is where d_name starts in a linux_dirent64 (after d_ino,
// d_off, d_reclen and d_type).
const direntNameOff = 19

func direntKind(dirfd int, name []byte, typ uint8) entryKind {
	if typ == unix.DT_UNKNOWN {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return entryOther
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			typ = unix.DT_DIR
		case unix.S_IFREG:
			typ = unix.DT_REG
		}
	}
	switch typ {
	case unix.DT_DIR:
		return entryDir
	case unix.DT_REG:
		return entryFile
	}
	return entryOther
}

// dirStamp is what says a directory's entries have not changed: the
// kernel updates a directory's ctime and mtime whenever an entry is
// created, removed or renamed in it, and no process can set a ctime (only
// the clock it is taken from, CAP_SYS_TIME in the initial user namespace).
type dirStamp struct {
	dev, ino     uint64
	ctime, mtime int64 // nanoseconds
	size, nlink  uint64
}

// stampRacy is how recent a ctime may be and still vouch for a listing: a
// change in the same timestamp tick (a coarse clock, a file system that
// keeps seconds) could leave it as it was. (A variable for the tests.)
var stampRacy = 3 * time.Second

// stampFS are the file systems whose directory ctimes the kernel itself
// maintains (not a FUSE server's or a network peer's word for it).
var stampFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC: true, unix.F2FS_SUPER_MAGIC: true,
}

// leafFS are the file systems where a directory's link count is 2 plus
// its number of subdirectories, kept by the kernel (each subdirectory's
// ".." is a link to it): ext2/3/4 (which sets it to 1, never 2, past 65,000
// subdirectories) and tmpfs. Btrfs (always 1), FUSE, network and overlay
// file systems are not among them.
var leafFS = map[int64]bool{unix.EXT4_SUPER_MAGIC: true, unix.TMPFS_MAGIC: true}

// fsKind is what a search knows about one device's file system.
type fsKind struct{ stamps, leaves bool }

// stamper takes the stamps of one search.
type stamper struct {
	now time.Time
	fs  map[uint64]fsKind // by device: in stampFS, in leafFS
}

func newStamper(now time.Time) *stamper { return &stamper{now: now, fs: map[uint64]fsKind{}} }

// stamp returns the directory's stamp, and whether it vouches for the
// directory's listing: a directory (symlinks not followed) on a file
// system of stampFS whose ctime is older than stampRacy. leaf says the
// directory had no subdirectory when it was stamped: a link count of 2 on
// a file system of leafFS.
func (s *stamper) stamp(path string) (d dirStamp, vouch, leaf bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirStamp{}, false, false
	}
	k, seen := s.fs[st.Dev]
	if !seen {
		var sf unix.Statfs_t
		if unix.Statfs(path, &sf) == nil {
			k = fsKind{stamps: stampFS[int64(sf.Type)], leaves: leafFS[int64(sf.Type)]}
		}
		s.fs[st.Dev] = k
	}
	ctime := st.Ctim.Nano()
	d = dirStamp{dev: st.Dev, ino: st.Ino, ctime: ctime, mtime: st.Mtim.Nano(), size: uint64(st.Size), nlink: uint64(st.Nlink)}
	return d, k.stamps && ctime < s.now.Add(-stampRacy).UnixNano(), k.leaves && st.Nlink == 2
}

// leafGit is the listing the search keeps of a directory without
// subdirectories: its .git when that is a directory or a regular file
// (symlinks not followed), which one lstat tells without reading the
// directory. known is false when lstat failed otherwise than with ENOENT:
// then the directory is read.
func leafGit(path string) (ents []searchEntry, known bool) {
	var st unix.Stat_t
	switch err := unix.Lstat(path+"/.git", &st); {
	case err == unix.ENOENT:
		return nil, true
	case err != nil:
		return nil, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return []searchEntry{{".git", true}}, true
	case unix.S_IFREG:
		return []searchEntry{{".git", false}}, true
	}
	return nil, true
}

// readGitFile reads a .git file when it is a regular file of at most 4096
// bytes; a link is not followed, a FIFO not opened for reading.
func readGitFile(p string) ([]byte, bool) {
	b, err := readFileAt(unix.AT_FDCWD, p, 4096)
	return b, err == nil
}
