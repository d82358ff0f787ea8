//go:build !unix

package checkpoint

import "os"

// flock: without flock, only the sessions of one process are serialised.
func flock(*os.File) error { return nil }
