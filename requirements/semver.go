package requirements

import (
	"errors"
	"strings"

	"golang.org/x/mod/semver"
)

// version is a semantic version (semver.org 2.0.0) in golang.org/x/mod/semver's
// canonical form ("v1.4.0-rc.1", build metadata dropped, as precedence
// ignores it).
type version string

var errSemver = errors.New("not a semantic version MAJOR.MINOR.PATCH")

// parseVersion parses "1.4.0", "v1.4.0-rc.1+build.5" (a leading v is
// allowed). The x/mod parser also takes the shorthands "v1" and "v1.2"; a
// policy's version floor must name all three numbers.
func parseVersion(s string) (version, error) {
	v := s
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	if !semver.IsValid(v) || strings.Count(core, ".") != 2 {
		return "", errSemver
	}
	return version(semver.Canonical(v)), nil
}

// less reports whether v precedes w (semver.org §11).
func (v version) less(w version) bool { return semver.Compare(string(v), string(w)) < 0 }

func (v version) String() string { return strings.TrimPrefix(string(v), "v") }
