package schema

import (
	"errors"
	"fmt"
)

// The caps every oceancode applies to a config file (project, user, managed,
// managed.d drop-in) before and while parsing it. oceanadmin validate applies
// the same caps, so a file it accepts is never refused for its size or depth.
const (
	// MaxConfigSize is the largest config file accepted, in bytes (4 MiB).
	MaxConfigSize = 4 << 20
	// MaxConfigDepth is the deepest nesting of objects and arrays accepted.
	MaxConfigDepth = 64
)

// ErrTooLarge marks a file over its size cap.
var ErrTooLarge = errors.New("file too large")

// CheckSize refuses a config file of n bytes when it is over MaxConfigSize.
func CheckSize(n int) error {
	if n > MaxConfigSize {
		return fmt.Errorf("%w: %d bytes is more than the %d-byte (4 MiB) limit for a config file: every oceancode refuses it; split it into managed.d/*.json drop-ins or remove what is not needed", ErrTooLarge, n, MaxConfigSize)
	}
	return nil
}
