package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/oceancode/oceancode/layers/layerstest"
)

// BenchmarkSandboxOwnCost measures, in the same run and interleaved (five
// rounds of b.N/5 runs of each, so a drifting machine weighs on all
// alike), `oceancode sandbox -- true`, the same with --mode
// danger-full-access (the process without the sandbox), and a minimal
// bubblewrap (`bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all
// --die-with-parent --new-session true`). The sandbox's own cost is the
// first minus the second; own-cost/bwrap is the figure the budget is set in
// (≤ 2.5 since issue 22). The binaries are built as make build builds them, the sandbox's
// helpers (the C exec helper, the lean Go one) beside oceancode. The workspace is the test machine's
// project (an empty .git); OCEANCODE_BENCH_WS names another (a clone of a
// real repository: its nested-repository search and git dirs' mounts).
// No timing is asserted.
func BenchmarkSandboxOwnCost(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the Linux sandbox")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Fatal("bubblewrap is missing: run scripts/install-bwrap.sh")
	}
	bin := built(b)
	m := layerstest.New(b)
	env := []string{"HOME=" + m.Home, "XDG_CONFIG_HOME=" + m.Env["XDG_CONFIG_HOME"], "XDG_STATE_HOME=" + m.Env["XDG_STATE_HOME"],
		"PATH=" + os.Getenv("PATH")}
	oc := filepath.Join(bin, "oceancode")
	ws := m.Project
	if d := os.Getenv("OCEANCODE_BENCH_WS"); d != "" {
		ws = d
	}
	// Check once that the sandbox really runs (and fill the probe cache, as
	// any earlier call would have).
	c := exec.Command(oc, "sandbox", "--", "sh", "-c", "touch /etc/oceancode-bench-probe 2>/dev/null && echo WRITABLE || echo CONFINED")
	c.Dir, c.Env = ws, env
	if out, err := c.CombinedOutput(); err != nil || string(out) != "CONFINED\n" {
		b.Fatalf("oceancode sandbox does not confine (%v): %s", err, out)
	}
	cases := []struct {
		name string
		argv []string
	}{
		{"sandbox", []string{oc, "sandbox", "--", "true"}},
		{"full-access", []string{oc, "sandbox", "--mode", "danger-full-access", "--", "true"}},
		{"bwrap-minimal", []string{bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "--new-session", "true"}},
	}
	const rounds = 5
	per := max(1, b.N/rounds)
	times := make([][]time.Duration, len(cases))
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		for i, k := range cases {
			for _, run := range measure(b, per, ws, env, k.argv[0], k.argv[1:]...) {
				times[i] = append(times[i], time.Duration(run.WallNano))
			}
		}
	}
	b.StopTimer()
	med := make([]float64, len(cases))
	for i, k := range cases {
		med[i] = medianMS(times[i])
		b.ReportMetric(med[i], "ms-"+k.name)
	}
	own := med[0] - med[1]
	b.ReportMetric(own, "ms-own-cost")
	b.ReportMetric(own/med[2], "own-cost/bwrap")
}
