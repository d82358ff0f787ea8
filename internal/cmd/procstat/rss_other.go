//go:build !unix

package main

import "os"

// maxRSS: this system reports no peak resident set size.
func maxRSS(*os.ProcessState) int64 { return 0 }
