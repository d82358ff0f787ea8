package requirements

import (
	"strings"
	"testing"

	mmsemver "github.com/Masterminds/semver/v3"
)

// semver.org §11's precedence example, in order.
func TestSemverPrecedence(t *testing.T) {
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0"}
	for i, a := range order {
		va, err := parseVersion(a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		for j, b := range order {
			vb, _ := parseVersion(b)
			if got := va.less(vb); got != (i < j) {
				t.Errorf("%s < %s = %v, want %v", a, b, got, i < j)
			}
		}
	}
	for _, bad := range []string{"", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "1.2.3+", "1.2.3-a_b", "dev", "vv1.2.3", " 1.2.3", "1.2.3 "} {
		if _, err := parseVersion(bad); err == nil {
			t.Errorf("%q parsed as a version", bad)
		}
	}
	if v, err := parseVersion("v1.4.0-rc.1+build.5"); err != nil || v.String() != "1.4.0-rc.1" {
		t.Errorf("v1.4.0-rc.1+build.5: %v %v", v, err)
	}
}

// FuzzSemver checks the parser and the precedence against a well-kept
// library's strict parser (which start-up cannot afford; see semver.go).
func FuzzSemver(f *testing.F) {
	for _, s := range [][2]string{{"1.4.0", "1.4.0-rc.1"}, {"v1.0.0-alpha.1", "1.0.0-alpha.beta"}, {"1.0.0-beta.11", "1.0.0-beta.2"}, {"1.2.3+b", "1.2.3"}, {"01.2.3", "1.2.3"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, errA := parseVersion(a)
		ma, mErrA := mmsemver.StrictNewVersion(strings.TrimPrefix(a, "v"))
		if (errA == nil) != (mErrA == nil) {
			// The library caps each number at int64; ours at uint64.
			if errA == nil && mErrA != nil && strings.Contains(mErrA.Error(), "parsing") {
				return
			}
			t.Fatalf("%q: ours %v, library %v", a, errA, mErrA)
		}
		vb, errB := parseVersion(b)
		mb, mErrB := mmsemver.StrictNewVersion(strings.TrimPrefix(b, "v"))
		if errA != nil || errB != nil || mErrB != nil {
			return
		}
		if got, want := va.less(vb), ma.LessThan(mb); got != want {
			t.Fatalf("%q < %q: ours %v, library %v", a, b, got, want)
		}
	})
}
