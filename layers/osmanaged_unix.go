//go:build unix

package layers

import (
	"fmt"

	"github.com/oceancode/oceancode/signing"
)

// readManagedPreferences reads and parses a managed-preferences plist with
// the admin anchor's checks (macOS; testable on any Unix).
func readManagedPreferences(path string, c signing.AnchorCheck) (*OSManaged, error) {
	data, err := signing.ReadAdminFile(path, c, maxPlist)
	if err != nil {
		return nil, err
	}
	v, err := ParsePlist(data)
	if err != nil {
		return nil, fmt.Errorf("layers: %s: %w", path, err)
	}
	prefs, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("layers: %s: the plist is a %T, not a dictionary", path, v)
	}
	return FromPreferences(path, prefs)
}

// readPreferencesFile reads a managed-preferences plist (Resolve's macOS
// source, and the plist tests name on any Unix).
func readPreferencesFile(path string, c signing.AnchorCheck) (*OSManaged, error) {
	return readManagedPreferences(path, c)
}
