//go:build !unix

package instructions

import "os"

// openNoBlock opens path for reading.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
