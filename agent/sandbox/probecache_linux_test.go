//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/internal/hermetictest"
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

// TestHelperBindsProbe: whether the exec helper can make the protected
// paths' binds is probed for real once and kept, either way, under a key
// that includes the helper's file: a helper that cannot (a stand-in that
// fails, as on a host whose policy refuses its mounts) gets bubblewrap's
// binds; the kept answer is used while the key holds; a changed helper
// probes again; the real helper, as root on this kernel, can.
func TestHelperBindsProbe(t *testing.T) {
	requireSandbox(t)
	if !mountAPI() {
		t.Skip("the exec helper binds only for a root agent on Linux 5.12+")
	}
	if ExecHelperPath == "" {
		t.Skip("the Go-helper-only run")
	}
	bwrap := cachedSupport().Bwrap
	dir := hermetictest.Scratch(t) // visible inside the probe's sandbox
	state := filepath.Join(dir, "state")
	SetProbeCacheDir(state)
	t.Cleanup(func() { SetProbeCacheDir("") })
	cache := filepath.Join(state, helperBindsCacheFile)
	standIn := filepath.Join(dir, ExecHelperBinary)
	must(t, os.WriteFile(standIn, []byte("#!/bin/sh\necho 'sandbox: bind /etc: open_tree: Operation not permitted' >&2\nexit 126\n"), 0o755))

	if probeHelperBinds(bwrap, standIn, true) {
		t.Fatal("a helper that cannot bind was taken for one that can")
	}
	b, err := os.ReadFile(cache)
	if err != nil || !strings.HasPrefix(string(b), "nobinds ") {
		t.Fatalf("the negative answer was not kept: %q %v", b, err)
	}
	// The kept answer is used (not the stand-in, which would fail).
	must(t, os.WriteFile(cache, []byte("binds "+strings.TrimPrefix(string(b), "nobinds ")), 0o600))
	if !probeHelperBinds(bwrap, standIn, true) {
		t.Error("the kept answer was not used")
	}
	// A changed helper probes again.
	future := time.Now().Add(time.Hour)
	must(t, os.Chtimes(standIn, future, future))
	if probeHelperBinds(bwrap, standIn, true) {
		t.Error("a changed helper was not probed again")
	}
	// The real one can, cached or not.
	if !probeHelperBinds(bwrap, ExecHelperPath, true) || !probeHelperBinds(bwrap, ExecHelperPath, false) {
		t.Error("the real exec helper cannot bind here")
	}
	if b, _ := os.ReadFile(cache); !strings.HasPrefix(string(b), "binds ") {
		t.Errorf("cache after the real helper: %q", b)
	}
}
