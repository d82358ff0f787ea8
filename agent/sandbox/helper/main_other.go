//go:build !(linux && (amd64 || arm64))

package helper

import (
	"errors"
	"runtime"
)

// Main is the helper, which exists only on Linux (amd64, arm64).
func Main(args []string) error {
	return errors.New("sandbox: helper mode is not supported on " + runtime.GOOS + "/" + runtime.GOARCH)
}
