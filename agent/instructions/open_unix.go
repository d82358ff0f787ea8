//go:build unix

package instructions

import (
	"os"
	"syscall"
)

// openNoBlock opens a resolved path for reading without blocking on a FIFO
// and without following a symlink swapped in since it was resolved.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
