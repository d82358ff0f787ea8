//go:build !unix

package packaging_test

// syscallUmask: no umask here; the rebuild test varies the other
// surroundings.
func syscallUmask(int) int { return 0 }
