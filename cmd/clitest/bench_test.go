package clitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/internal/exechelper"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/internal/telemetry/otlptest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// built compiles the binaries once, as make build does (trimmed, stripped),
// but as test builds (hermetictest.BuildTag), so each run's managed dir is
// the benchmark's own (noManagedDir), never the host's: oceancode with its
// model client and sandbox helpers beside it, oceanadmin, and procstat,
// which starts them and measures each run. They go in .oc-scratch-bench-PID
// in the package directory (ignored by git), not under /tmp: an installed
// oceancode does not lie where the sandbox mounts a tmpfs (its helper would
// need a bind of its own). The directories of earlier, finished runs are
// removed first.
func built(b *testing.B) string {
	buildOnce.Do(func() {
		stale, _ := filepath.Glob(".oc-scratch-bench-*")
		for _, d := range stale {
			if pid, err := strconv.Atoi(strings.TrimPrefix(d, ".oc-scratch-bench-")); err == nil && syscallAlive(pid) {
				continue
			}
			os.RemoveAll(d)
		}
		binDir = ".oc-scratch-bench-" + strconv.Itoa(os.Getpid())
		if buildErr = os.Mkdir(binDir, 0o755); buildErr != nil {
			return
		}
		if binDir, buildErr = filepath.Abs(binDir); buildErr != nil {
			return
		}
		for c, pkg := range map[string]string{"oceancode": "../oceancode", "oceancode-model": "../oceancode-model", "oceancode-sandbox": "../oceancode-sandbox",
			"oceancode-pager": "../oceancode-pager",
			"oceanadmin":      "../oceanadmin", "procstat": "../../internal/cmd/procstat"} {
			cmd := exec.Command("go", "build", "-tags", hermetictest.BuildTag, "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(binDir, c), pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = err
				b.Logf("%s", out)
				return
			}
		}
		// The sandbox's exec helper, as make build puts it beside oceancode.
		if runtime.GOOS == "linux" {
			built, err := exechelper.Build()
			var data []byte
			if err == nil {
				data, err = os.ReadFile(built)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(binDir, "oceancode-sandbox-exec"), data, 0o755)
			}
			exechelper.Cleanup()
			if err != nil {
				buildErr = err
				return
			}
		}
		// Copies of what the linkers wrote: a binary straight out of the
		// linker was seen starting up to 1 ms slower than the same bytes
		// copied (docs/benchmarks.md), which an installed binary never is.
		ents, err := os.ReadDir(binDir)
		if err != nil {
			buildErr = err
			return
		}
		for _, e := range ents {
			p := filepath.Join(binDir, e.Name())
			data, err := os.ReadFile(p)
			if err == nil {
				err = os.Remove(p)
			}
			if err == nil {
				err = os.WriteFile(p, data, 0o755)
			}
			if err != nil {
				buildErr = err
				return
			}
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binDir
}

// noManagedDir is the managed dir of a benchmark's runs: an empty
// directory, as on a machine without a policy.
func noManagedDir(b *testing.B) string {
	return hermetictest.EnvManagedDir + "=" + b.TempDir()
}

// procRun is one run as procstat reports it.
type procRun struct {
	StartUnixNano int64 `json:"start_unix_nano"`
	WallNano      int64 `json:"wall_nano"`
	MaxRSSKiB     int64 `json:"max_rss_kib"`
}

// measure runs the command n times through procstat (a small parent, so
// the peak RSS is the command's own: see internal/cmd/procstat).
func measure(b *testing.B, n int, dir string, env []string, name string, args ...string) []procRun {
	b.Helper()
	argv := append([]string{"-n", strconv.Itoa(n), "-dir", dir, "--", name}, args...)
	cmd := exec.Command(filepath.Join(built(b), "procstat"), argv...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("procstat %s: %v\n%s", name, err, stderr.String())
	}
	var runs []procRun
	if err := json.Unmarshal(out, &runs); err != nil || len(runs) != n {
		b.Fatalf("procstat %s: %d runs, %v", name, len(runs), err)
	}
	return runs
}

// syscallAlive reports whether a process with this pid exists.
func syscallAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

func medianMS(d []time.Duration) float64 {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return float64(d[len(d)/2].Microseconds()) / 1000
}

// report records the median wall time and the peak RSS of the runs.
func report(b *testing.B, runs []procRun) {
	var times []time.Duration
	var peak int64
	for _, r := range runs {
		times = append(times, time.Duration(r.WallNano))
		peak = max(peak, r.MaxRSSKiB)
	}
	b.ReportMetric(medianMS(times), "ms-median")
	b.ReportMetric(float64(peak)/1024, "MiB-peak-rss")
}

// runProcess runs the command b.N times and reports the median wall time
// and the peak resident set size of the child.
func runProcess(b *testing.B, dir string, env []string, name string, args ...string) {
	b.Helper()
	built(b)
	b.ResetTimer()
	runs := measure(b, b.N, dir, env, name, args...)
	b.StopTimer()
	report(b, runs)
}

// BenchmarkVersionProcess: `oceancode --version`, whole process.
func BenchmarkVersionProcess(b *testing.B) {
	bin := built(b)
	runProcess(b, b.TempDir(), []string{"HOME=" + b.TempDir(), noManagedDir(b)}, filepath.Join(bin, "oceancode"), "--version")
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
		noManagedDir(b),
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
func BenchmarkRunTurnProcess(b *testing.B) { benchRunTurn(b, false) }

// BenchmarkRunTurnTelemetryProcess: the same turn with telemetry.enabled,
// exporting its decision to a loopback OTLP/HTTP receiver (docs/telemetry.md).
func BenchmarkRunTurnTelemetryProcess(b *testing.B) { benchRunTurn(b, true) }

func benchRunTurn(b *testing.B, telemetry bool) {
	bin := built(b)
	srv := providertest.NewScript(nil, providertest.Script{Loop: true, Turns: []providertest.Turn{
		{ToolCalls: []providertest.ToolCall{{Name: "bash", Input: []byte(`{"command":"echo hello"}`)}}},
		{Text: "done"},
	}})
	defer srv.Close()
	m := layerstest.New(b)
	extra := ""
	var rcv *otlptest.Receiver
	if telemetry {
		rcv = otlptest.New()
		defer rcv.Close()
		extra = `, "telemetry": {"enabled": true}`
	}
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/m"` + extra + `}`)
	m.TrustProject()
	env := []string{"HOME=" + m.Home, "XDG_CONFIG_HOME=" + m.Env["XDG_CONFIG_HOME"], "XDG_STATE_HOME=" + m.Env["XDG_STATE_HOME"],
		"OPENAI_API_KEY=k", "PATH=" + os.Getenv("PATH"), noManagedDir(b)}
	if rcv != nil {
		env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL())
	}
	before := len(srv.Requests())
	b.ResetTimer()
	runs := measure(b, b.N, m.Project, env, filepath.Join(bin, "oceancode"), "run", "--auto", "--format", "json", "say hello")
	b.StopTimer()
	reqs := srv.Requests()[before:]
	if len(reqs) != 2*b.N {
		b.Fatalf("%d model requests for %d turns with one tool call each, want %d (no side requests)", len(reqs), b.N, 2*b.N)
	}
	var firstReq []time.Duration
	for i, r := range runs {
		firstReq = append(firstReq, reqs[2*i].At.Sub(time.Unix(0, r.StartUnixNano)))
	}
	if rcv != nil && len(rcv.Spans()) < 2*b.N {
		b.Fatalf("the receiver got %d spans for %d runs, want a decision and a summary each", len(rcv.Spans()), b.N)
	}
	report(b, runs)
	b.ReportMetric(medianMS(firstReq), "ms-to-first-request")
	b.ReportMetric(float64(len(reqs[0].Body)), "first-request-bytes")
}

// BenchmarkHelloWorldProcess: a static Go "hello, world", built and started
// the same way — the machine's floor for any Go process at that moment.
// Start-up figures mean little without it on a machine whose speed drifts.
func BenchmarkHelloWorldProcess(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build hello: %v\n%s", err, out)
	}
	runProcess(b, dir, []string{"HOME=" + dir}, bin)
}
