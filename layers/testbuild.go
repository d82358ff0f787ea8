//go:build oceancodetest

package layers

import "os"

// Only binaries built with -tags oceancodetest (TestBuildTag) compile this
// file: tests that build the real binaries point them at a managed dir of
// their own, so a policy deployed on the machine running the tests cannot
// change their outcome and nothing is read from the host's managed dir.
// `make build` and every release build compile prodbuild.go instead, which
// names nothing, so there the variable is ignored (layers'
// TestTestManagedDirOnlyInTestBuilds).
//
// testManaged is consulted by Resolve for each load, as a default of
// Options.ManagedDir and Options.ManagedPreferences: no package variable is
// changed. With the dir named, the host's OS-native source is not read
// either: only the plist the test names, if any.
func testManaged() (dir, preferences string) {
	if d := os.Getenv(EnvTestManagedDir); d != "" {
		return d, os.Getenv(EnvTestManagedPreferences)
	}
	return "", ""
}
