package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// built compiles both binaries once, as make build does (trimmed, stripped).
func built(b *testing.B) string {
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "oceancode-bench-")
		if buildErr != nil {
			return
		}
		for _, c := range []string{"oceancode", "oceanadmin"} {
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(binDir, c), "../"+c)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = err
				b.Logf("%s", out)
				return
			}
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binDir
}

// runProcess runs the command b.N times and reports the median wall time
// and the peak resident set size of the child.
func runProcess(b *testing.B, dir string, env []string, name string, args ...string) {
	b.Helper()
	var times []time.Duration
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		times = append(times, time.Since(start))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peak {
			peak = ru.Maxrss
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(peak)/1024, "MiB-peak-rss")
}

// BenchmarkVersionProcess: `oceancode --version`, whole process.
func BenchmarkVersionProcess(b *testing.B) {
	bin := built(b)
	runProcess(b, b.TempDir(), []string{"HOME=" + b.TempDir()}, filepath.Join(bin, "oceancode"), "--version")
}

// BenchmarkInspectJSONProcess: `oceancode inspect --json` with project,
// user, managed and a 2-signature requirements file (threshold 2), every
// file validated against its schema, whole process.
func BenchmarkInspectJSONProcess(b *testing.B) {
	bin := built(b)
	m := layerstest.Full(b)
	m.Extra = append(m.Extra, layerstest.FixedKey("second admin"))
	m.Requirements(8, map[string]any{"threshold": 2, "disable_bypass_permissions": true,
		"pins": map[string]any{"sandbox.mode": "workspace-write"}, "rules": map[string]any{"deny": []any{"Bash(curl:*)"}}})
	keys := filepath.Join(m.Root, "keys.pub")
	if err := os.WriteFile(keys, []byte(m.PublicKeys()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{
		"HOME=" + m.Home,
		"XDG_CONFIG_HOME=" + m.Env["XDG_CONFIG_HOME"],
		"XDG_STATE_HOME=" + m.Env["XDG_STATE_HOME"],
		"OC_MANAGED_CONFIG=" + filepath.Join(m.ManagedDir, "managed.json"),
		"OC_REQUIREMENTS_PUBKEY=@" + keys,
	}
	// Check once that the fixture is what the figure claims.
	out, err := exec.Command("sh", "-c", "cd "+m.Project+" && env "+joinEnv(env)+" "+filepath.Join(bin, "oceancode")+" inspect --layers").CombinedOutput()
	if err != nil || !contains(string(out), "Requirements: verified") || !contains(string(out), "  user ") || !contains(string(out), "  project ") || !contains(string(out), "  managed ") {
		b.Fatalf("fixture not fully layered (%v):\n%s", err, out)
	}
	runProcess(b, m.Project, env, filepath.Join(bin, "oceancode"), "inspect", "--json")
}

func joinEnv(env []string) string {
	s := ""
	for _, e := range env {
		s += "'" + e + "' "
	}
	return s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// BenchmarkRunTurnProcess: one headless `oceancode run` turn with one bash
// tool call against the loopback model, whole process, sandbox off. It
// reports the median wall time, the peak RSS and the median time from the
// process's start to its first model request.
func BenchmarkRunTurnProcess(b *testing.B) {
	bin := built(b)
	srv := providertest.NewScript(nil, providertest.Script{Loop: true, Turns: []providertest.Turn{
		{ToolCalls: []providertest.ToolCall{{Name: "bash", Input: []byte(`{"command":"echo hello"}`)}}},
		{Text: "done"},
	}})
	defer srv.Close()
	m := layerstest.New(b)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/m"}`)
	env := []string{"HOME=" + m.Home, "XDG_CONFIG_HOME=" + m.Env["XDG_CONFIG_HOME"], "XDG_STATE_HOME=" + m.Env["XDG_STATE_HOME"],
		"OPENAI_API_KEY=k", "PATH=" + os.Getenv("PATH")}
	var firstReq []time.Duration
	var times []time.Duration
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := len(srv.Requests())
		cmd := exec.Command(filepath.Join(bin, "oceancode"), "run", "--auto", "--format", "json", "say hello")
		cmd.Dir, cmd.Env = m.Project, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("run: %v\n%s", err, out)
		}
		times = append(times, time.Since(start))
		reqs := srv.Requests()
		if len(reqs)-before != 2 {
			b.Fatalf("%d model requests for one turn with one tool call, want 2 (no side requests)", len(reqs)-before)
		}
		firstReq = append(firstReq, reqs[before].At.Sub(start))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peak {
			peak = ru.Maxrss
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(med(times), "ms-median")
	b.ReportMetric(med(firstReq), "ms-to-first-request")
	b.ReportMetric(float64(peak)/1024, "MiB-peak-rss")
	b.ReportMetric(float64(len(srv.Requests()[0].Body)), "first-request-bytes")
}
