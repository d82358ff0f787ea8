//go:build !unix

package layers

import (
	"fmt"

	"github.com/oceancode/oceancode/signing"
)

// readPreferencesFile: managed preferences are a macOS store; on this
// system a plist is never read as policy.
func readPreferencesFile(path string, _ signing.AnchorCheck) (*OSManaged, error) {
	return nil, fmt.Errorf("layers: %s: %w on this system", path, ErrNoOSManaged)
}
