//go:build unix

package clitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// procKiB reads a VmRSS/VmHWM style line of /proc/PID/status, in KiB.
func procKiB(b *testing.B, pid int, field string) int64 {
	b.Helper()
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

// children lists a process's child pids (of all its threads).
func children(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// BenchmarkServeSessionsProcess: the built binary (as make build) serving
// 50 sessions at once, each streaming its events while it runs 10 turns
// against the loopback model. Reports the server's RSS (VmRSS after, VmHWM
// peak) from /proc, the memory per session over the idle server, and the
// model companion's RSS. Run it with -benchtime=1x: the load runs once
// whatever b.N is.
func BenchmarkServeSessionsProcess(b *testing.B) {
	const sessions, turns = 50, 10
	bin := built(b)
	model := providertest.NewScript(nil, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("one two three four five six seven eight")}})
	defer model.Close()
	m := serveMachine(b, model, "")
	s := startServeBin(b, filepath.Join(bin, "oceancode"), m, "--max-sessions", "64")
	pid := s.cmd.Process.Pid
	idle := procKiB(b, pid, "VmRSS")
	var rss, hwm int64
	b.ResetTimer()
	// The figure is for 50 sessions open at once: the load runs once
	// whatever b.N is (sessions stay open until the server stops).
	for _, err := range s.load(sessions, turns) {
		b.Fatal(err)
	}
	rss, hwm = procKiB(b, pid, "VmRSS"), procKiB(b, pid, "VmHWM")
	b.StopTimer()
	open := sessions
	b.ReportMetric(float64(rss)/1024, "MiB-rss")
	b.ReportMetric(float64(hwm)/1024, "MiB-hwm")
	b.ReportMetric(float64(idle)/1024, "MiB-rss-idle")
	b.ReportMetric(float64(rss-idle)/float64(open), "KiB/session")
	var companion int64
	for _, c := range children(pid) {
		companion += procKiB(b, c, "VmRSS")
	}
	b.ReportMetric(float64(companion)/1024, "MiB-companion-rss")
}

// mockModelProcess starts internal/cmd/mockmodel (built into the bench
// dir) with script and returns its base URL; it stops with the benchmark.
func mockModelProcess(b *testing.B, script string) string {
	b.Helper()
	bin := filepath.Join(built(b), "mockmodel")
	if _, err := os.Stat(bin); err != nil {
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "../../internal/cmd/mockmodel")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build mockmodel: %v\n%s", err, out)
		}
	}
	path := filepath.Join(b.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "-script", path)
	stdin, _ := cmd.StdinPipe() // closing it stops the model
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("mockmodel: %v", err)
	}
	return strings.TrimSpace(line)
}

// BenchmarkServeSSELatencyProcess: the built binary serving, the model a
// separate mockmodel process, the SSE client this process: the time from
// the engine stamping an event (its time field) in the server to this
// client having read it off the socket. "stream" is the text deltas of a
// 400-word answer streamed as fast as the loopback model can; "idle" is a
// mode_change after a live switch on an idle session. p50 and p99.
func BenchmarkServeSSELatencyProcess(b *testing.B) {
	url := mockModelProcess(b, `{"loop": true, "turns": [{"text": "`+strings.TrimSpace(strings.Repeat("w ", 400))+`"}]}`)
	m := layerstest.New(b)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + url + `/v1"}}, "model": "mock/m"}`)
	m.TrustProject()
	s := startServeBin(b, filepath.Join(built(b), "oceancode"), m)
	id := s.create(nil)
	req, _ := http.NewRequest("GET", s.URL+"/api/session/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReaderSize(resp.Body, 1<<16)
	// next reads up to the next event of one of types; its latency.
	next := func(types ...string) (string, time.Duration) {
		for {
			line, err := br.ReadSlice('\n')
			now := time.Now()
			if err != nil {
				b.Fatal(err)
			}
			data, ok := bytes.CutPrefix(line, []byte("data: "))
			if !ok {
				continue
			}
			var ev struct {
				Type string
				Time time.Time
			}
			if err := json.Unmarshal(data, &ev); err != nil {
				b.Fatal(err)
			}
			if slices.Contains(types, ev.Type) {
				return ev.Type, now.Sub(ev.Time)
			}
		}
	}
	var stream, idle []time.Duration
	b.ResetTimer()
	for len(stream) < b.N {
		s.send(id, "talk")
		for {
			typ, d := next("text", "done")
			if typ == "done" {
				break
			}
			if len(stream) < b.N {
				stream = append(stream, d)
			}
		}
	}
	modes := []string{"acceptEdits", "default"}
	for i := range max(b.N/10, 100) {
		s.call("POST", "/api/session/"+id+"/permission/mode", map[string]string{"mode": modes[i%2]}, 200, "")
		_, d := next("mode_change")
		idle = append(idle, d)
	}
	b.StopTimer()
	for name, lat := range map[string][]time.Duration{"stream": stream, "idle": idle} {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-p50-"+name)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs-p99-"+name)
	}
}
