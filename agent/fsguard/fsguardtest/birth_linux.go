//go:build linux

package fsguardtest

import (
	"time"

	"golang.org/x/sys/unix"
)

// birth is path's birth time, and whether the filesystem reports one.
func birth(path string) (time.Time, bool, error) {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_BTIME, &stx); err != nil {
		return time.Time{}, false, err
	}
	if stx.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}, false, nil
	}
	return time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec)), true, nil
}
