//go:build unix

package cli

import (
	"os"
	"syscall"
)

// fileUID is the uid owning fi, where the system says.
func fileUID(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
