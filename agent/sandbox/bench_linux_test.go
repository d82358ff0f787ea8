//go:build linux && (amd64 || arm64)

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox/egress"
)

// BenchmarkSandboxTrue measures running true through the real sandbox
// (bubblewrap + helper re-exec + Landlock + seccomp, workspace-write,
// network off, then network allowlist with the egress proxy started once
// for all runs, as a session does) against a plain exec of true. Each
// sub-benchmark reports the median wall time per run as median-ms; the
// overhead is the difference. No timing is asserted.
// OCEANCODE_HELPER=/path/to/oceancode measures with the production binary
// as the helper.
func BenchmarkSandboxTrue(b *testing.B) {
	ws := b.TempDir()
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	env := os.Environ()
	median := func(b *testing.B, run func() error) {
		times := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if err := run(); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		b.StopTimer()
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	}
	b.Run("plain", func(b *testing.B) {
		median(b, func() error { return exec.Command(truePath).Run() })
	})
	sandboxed := func(b *testing.B, p Policy) {
		if err := cachedSupport().Usable(); err != nil {
			b.Fatal(err)
		}
		if h := os.Getenv("OCEANCODE_HELPER"); h != "" {
			old := HelperPath
			HelperPath = h
			defer func() { HelperPath = old }()
		}
		median(b, func() error {
			c, err := Command(context.Background(), p, []string{"true"}, env)
			if err != nil {
				return err
			}
			return c.Run()
		})
	}
	b.Run("sandbox", func(b *testing.B) {
		sandboxed(b, Policy{Enabled: true, Workspace: ws})
	})
	b.Run("sandbox-allowlist", func(b *testing.B) {
		allow := []string{"proxy.golang.org", "*.githubusercontent.com"}
		proxy, err := egress.New(egress.Config{Allow: allow})
		if err != nil {
			b.Fatal(err)
		}
		if err := proxy.Start(); err != nil {
			b.Fatal(err)
		}
		defer proxy.Close()
		sandboxed(b, Policy{Enabled: true, Workspace: ws, Network: NetworkAllowlist, AllowHosts: allow, Egress: proxy})
	})
}

// BenchmarkBuildPlan measures deriving the bubblewrap arguments for one
// command (the file-system probes of the workspace, home and host) in a
// small repository.
func BenchmarkBuildPlan(b *testing.B) {
	root := b.TempDir()
	ws, home := root+"/ws", root+"/home"
	for _, d := range []string{ws + "/.git/hooks", ws + "/.git/info", ws + "/.git/objects/pack", ws + "/.git/objects/info", ws + "/.git/refs/heads", ws + "/src/a", ws + "/src/b", home + "/.config/oceancode", home + "/.local/state/oceancode", home + "/.cache"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/.git/HEAD", ws + "/.git/config", ws + "/.git/packed-refs"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	p := Policy{Enabled: true, Workspace: ws}
	env := Env{Helper: "/usr/bin/true", Home: home, LandlockABI: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildPlan(p, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNestedGitPaths measures the search for nested repositories in a
// tree of 20 × 20 directories (OCEANCODE_BENCH_WS: a real one instead):
// every directory read (read), and a session's next search of the
// unchanged tree from the last one's listings (stamped).
func BenchmarkNestedGitPaths(b *testing.B) {
	ws := os.Getenv("OCEANCODE_BENCH_WS")
	if ws == "" {
		ws = b.TempDir()
		for i := 0; i < 20; i++ {
			for j := 0; j < 20; j++ {
				if err := os.MkdirAll(fmt.Sprintf("%s/d%02d/e%02d", ws, i, j), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
		old := stampRacy
		stampRacy = 0 // the tree was made just now; wait out the clock's tick instead
		b.Cleanup(func() { stampRacy = old })
		time.Sleep(30 * time.Millisecond)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			nestedGitPaths(ws)
		}
	})
	b.Run("stamped", func(b *testing.B) {
		_, c := searchGitDirs(ws, nil)
		before := dirsRead.Load()
		for b.Loop() {
			_, c = searchGitDirs(ws, c)
		}
		b.ReportMetric(float64(dirsRead.Load()-before)/float64(b.N), "dirs-read/op")
	})
}
