//go:build linux

package fsguard

import (
	"time"

	"golang.org/x/sys/unix"
)

// statBirth stats path (following symlinks) with statx, asking for the
// birth time. hasBirth is false when the filesystem does not report one
// (stx_mask lacks STATX_BTIME).
func statBirth(path string) (fileInfo, error) {
	var stx unix.Statx_t
	mask := unix.STATX_TYPE | unix.STATX_SIZE | unix.STATX_BTIME
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, mask, &stx); err != nil {
		if err == unix.ENOTDIR {
			err = unix.ENOENT
		}
		return fileInfo{}, err
	}
	fi := fileInfo{size: int64(stx.Size), dir: stx.Mode&unix.S_IFMT == unix.S_IFDIR}
	if stx.Mask&unix.STATX_BTIME != 0 {
		fi.hasBirth = true
		fi.birth = time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec))
	}
	return fi, nil
}
