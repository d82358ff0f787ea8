package requirements

import (
	"errors"
	"strconv"
	"strings"
)

// semver is a parsed semantic version (semver.org 2.0.0). It is parsed by
// hand rather than with a library: the one available compiles six regular
// expressions at start-up, which every oceancode process (inspect, run)
// would pay for; version_test.go checks this parser against it.
type semver struct {
	major, minor, patch uint64
	pre                 []string // pre-release identifiers; nil for a release
}

var errSemver = errors.New("not a semantic version MAJOR.MINOR.PATCH")

// parseVersion parses "1.4.0", "v1.4.0-rc.1+build.5" (a leading v is
// allowed; build metadata is ignored, as precedence ignores it).
func parseVersion(s string) (semver, error) {
	var v semver
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		if !identifiers(s[i+1:], false) {
			return v, errSemver
		}
		s = s[:i]
	}
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, errSemver
	}
	nums := make([]uint64, 3)
	for i, p := range parts {
		if !numeric(p) || len(p) > 1 && p[0] == '0' {
			return v, errSemver
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, errSemver
		}
		nums[i] = n
	}
	v.major, v.minor, v.patch = nums[0], nums[1], nums[2]
	if hasPre {
		if !identifiers(pre, true) {
			return v, errSemver
		}
		v.pre = strings.Split(pre, ".")
	}
	return v, nil
}

// identifiers checks dot-separated identifiers of [0-9A-Za-z-]; numeric
// pre-release identifiers have no leading zero.
func identifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
				return false
			}
		}
		if pre && numeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

func numeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// less reports whether v precedes w (semver.org §11).
func (v semver) less(w semver) bool {
	switch {
	case v.major != w.major:
		return v.major < w.major
	case v.minor != w.minor:
		return v.minor < w.minor
	case v.patch != w.patch:
		return v.patch < w.patch
	case len(v.pre) == 0 || len(w.pre) == 0:
		return len(v.pre) > 0 && len(w.pre) == 0 // a pre-release precedes its release
	}
	for i := 0; i < len(v.pre) && i < len(w.pre); i++ {
		a, b := v.pre[i], w.pre[i]
		if a == b {
			continue
		}
		an, bn := numeric(a), numeric(b)
		switch {
		case an && bn:
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		case an != bn:
			return an // numeric identifiers precede alphanumeric ones
		}
		return a < b
	}
	return len(v.pre) < len(w.pre)
}

func (v semver) String() string {
	s := strconv.FormatUint(v.major, 10) + "." + strconv.FormatUint(v.minor, 10) + "." + strconv.FormatUint(v.patch, 10)
	if len(v.pre) > 0 {
		s += "-" + strings.Join(v.pre, ".")
	}
	return s
}
