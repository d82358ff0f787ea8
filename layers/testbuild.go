//go:build oceancodetest

package layers

import "os"

// Only binaries built with -tags oceancodetest (TestBuildTag) compile this
// file: tests that build the real binaries point them at a managed dir of
// their own, so a policy deployed on the machine running the tests cannot
// change their outcome and nothing is read from the host's managed dir.
// `make build` and every release build leave the tag out, so there the
// variable is ignored (layers' TestProductionIgnoresTestManagedDir).
func init() {
	if d := os.Getenv(EnvTestManagedDir); d != "" {
		SystemManagedDir = d
		// Nor is the host's OS-native source read: only the plist the
		// test names, if any.
		SystemManagedPreferences = os.Getenv(EnvTestManagedPreferences)
		systemRegistry = false
	}
}
