//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProbeCache: the bubblewrap probe (a real bwrap behind a counting
// wrapper) runs once while its key holds; a changed bubblewrap file probes
// again; a failing probe is never cached, and removes the entry, so every
// call probes until it works; doctor's probe ignores the cache.
func TestProbeCache(t *testing.T) {
	requireSandbox(t)
	real := cachedSupport().Bwrap
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	bwrap := filepath.Join(dir, "bwrap")
	wrapper := func(body string) {
		t.Helper()
		must(t, os.WriteFile(bwrap, []byte("#!/bin/sh\necho run >> "+count+"\n"+body+"\n"), 0o755))
	}
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	state := filepath.Join(dir, "state")
	SetProbeCacheDir(state)
	t.Cleanup(func() { SetProbeCacheDir("") })
	cache := filepath.Join(state, probeCacheFile)

	wrapper(`exec ` + real + ` "$@"`)
	steps := []struct {
		name     string
		before   func()
		useCache bool
		wantErr  bool
		runs     int
		cached   bool
	}{
		{"first call probes and caches", nil, true, false, 1, true},
		{"second call uses the cache", nil, true, false, 1, true},
		{"doctor probes regardless", nil, false, false, 2, true},
		{"a changed bwrap probes again", func() {
			future := time.Now().Add(time.Hour)
			must(t, os.Chtimes(bwrap, future, future))
		}, true, false, 3, true},
		{"a failing probe is not cached", func() { wrapper(`echo "bwrap: setting up uid map: Permission denied" >&2; exit 1`) }, true, true, 4, false},
		{"and probes each time", nil, true, true, 5, false},
		{"until it works again", func() { wrapper(`exec ` + real + ` "$@"`) }, true, false, 6, true},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		msg := probeBwrap(bwrap, s.useCache)
		if (msg != "") != s.wantErr {
			t.Errorf("%s: probe error %q, want error %v", s.name, msg, s.wantErr)
		}
		if s.wantErr && !strings.Contains(msg, "uid map") {
			t.Errorf("%s: the error does not carry bubblewrap's message: %q", s.name, msg)
		}
		if got := runs(); got != s.runs {
			t.Errorf("%s: bubblewrap ran %d times in all, want %d", s.name, got, s.runs)
		}
		if _, err := os.Stat(cache); (err == nil) != s.cached {
			t.Errorf("%s: cache entry present = %v, want %v", s.name, err == nil, s.cached)
		}
	}
}
