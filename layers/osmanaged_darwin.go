//go:build darwin

package layers

import (
	"github.com/oceancode/oceancode/signing"
)

// ReadOSManaged reads the forced managed preferences of dev.oceancode
// (ManagedPreferencesFile), which only root can write: it must pass the
// admin anchor's checks (a root-owned regular file, not group- or
// world-writable, in a directory with the same properties). A missing file
// matches fs.ErrNotExist.
func ReadOSManaged() (*OSManaged, error) {
	return readManagedPreferences(ManagedPreferencesFile, signing.AnchorCheck{})
}
