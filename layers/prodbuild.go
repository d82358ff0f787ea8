//go:build !oceancodetest

package layers

// testManaged names no managed dir in a production build: only a binary
// built with TestBuildTag (testbuild.go) lets a test point it elsewhere.
func testManaged() (dir, preferences string) { return "", "" }
