// Package filestamp tells whether a file changed without reading it: its
// size, modification time, inode and type. A file replaced through a
// rename (as git and internal/atomicfile write) gets a new inode, so a
// replacement of the same size within the clock's resolution is still a
// change where the file system has inode numbers.
package filestamp

import (
	"io/fs"
	"os"
	"time"
)

// Stamp is what a stat says about a file; the zero Stamp is a file that
// could not be stat'ed.
type Stamp struct {
	Size  int64
	MTime time.Time
	Ino   uint64
	Type  fs.FileMode
	OK    bool
}

// Of is fi's stamp.
func Of(fi fs.FileInfo) Stamp {
	return Stamp{Size: fi.Size(), MTime: fi.ModTime(), Ino: inode(fi), Type: fi.Mode().Type(), OK: true}
}

// Stat is the stamp of p, following a symbolic link (zero when p cannot be
// stat'ed).
func Stat(p string) Stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return Stamp{}
	}
	return Of(fi)
}

// Lstat is the stamp of p itself (zero when p cannot be stat'ed).
func Lstat(p string) Stamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return Stamp{}
	}
	return Of(fi)
}

// Equal reports whether a and b stamp the same file state (times compared
// as instants).
func (a Stamp) Equal(b Stamp) bool {
	return a.Size == b.Size && a.MTime.Equal(b.MTime) && a.Ino == b.Ino && a.Type == b.Type && a.OK == b.OK
}
