package clitest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
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
// model companion's RSS. Run it with -benchtime=1x: one op is the whole
// load.
func BenchmarkServeSessionsProcess(b *testing.B) {
	const sessions, turns = 50, 10
	bin := built(b)
	model := providertest.NewScript(nil, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("one two three four five six seven eight")}})
	defer model.Close()
	m := serveMachine(b, model, "")
	s := startServeBin(b, filepath.Join(bin, "oceancode"), m, "--max-sessions", "100000")
	pid := s.cmd.Process.Pid
	idle := procKiB(b, pid, "VmRSS")
	var rss, hwm int64
	b.ResetTimer()
	for range b.N {
		for _, err := range s.load(sessions, turns) {
			b.Fatal(err)
		}
		rss, hwm = procKiB(b, pid, "VmRSS"), procKiB(b, pid, "VmHWM")
	}
	b.StopTimer()
	open := sessions * b.N
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
