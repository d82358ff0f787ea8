//go:build !darwin && !windows

package layers

import "fmt"

// ReadOSManaged: this system has no OS-native managed store; policy comes
// from the managed dir alone.
func ReadOSManaged() (*OSManaged, error) {
	return nil, fmt.Errorf("layers: %w on this system: use the managed dir", ErrNoOSManaged)
}
