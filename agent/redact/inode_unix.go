//go:build unix

package redact

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number: a file replaced by a rename of the same size
// and time is still a change.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
