//go:build !unix

package instructions_test

import "testing"

// mkfifo: there are no named pipes in the file system here.
func mkfifo(t *testing.T, p string) { t.Skip("no named pipes on this system") }
