// Package fsguardtest helps tests of code that runs an fsguard.Tracker wait
// on the kernel's birth-time clock as an event instead of sleeping.
package fsguardtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BornAfter waits for the event itself, not for a sleep to be long enough:
// it creates probe files beside path until one is born strictly after path
// (the kernel stamps birth times with a coarse clock, up to a jiffy behind
// time.Now), and returns that probe's birth time. path was born before it;
// every file created from now on is born at or after it, and time.Now is
// past path's birth. It skips the test where the filesystem reports no birth
// times.
func BornAfter(t testing.TB, path string) time.Time {
	t.Helper()
	b, ok, err := birth(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("the filesystem reports no birth times")
	}
	probe := filepath.Join(filepath.Dir(path), ".birth-probe")
	for {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, err := birth(probe)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(probe); err != nil {
			t.Fatal(err)
		}
		if p.After(b) {
			return p
		}
	}
}
