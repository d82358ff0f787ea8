//go:build unix

package cli

import (
	"fmt"
	"syscall"
)

// execReplace replaces this process with path (the terminal, the process
// id and its group stay the pager's).
func execReplace(path string, argv, env []string) error {
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("open the pager: exec %s: %w", path, err)
	}
	return nil
}
