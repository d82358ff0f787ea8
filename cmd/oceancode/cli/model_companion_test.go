package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestModelCompanionBinaries builds oceancode and oceancode-model side by
// side, as make build installs them, and runs real turns through them: the
// sibling is the companion used, exactly one starts per run (the one
// started during initialisation is taken over, not doubled), with or
// without the early start, and a missing companion is a clear error.
func TestModelCompanionBinaries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-model": remote.Binary} {
		hermetictest.GoBuild(t, filepath.Join(dir, name), pkg)
	}
	// A stand-in beside oceancode logs each start, then becomes the real one.
	companion := filepath.Join(dir, remote.Binary)
	if err := os.Rename(companion, companion+".real"); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "starts")
	if err := os.WriteFile(companion, []byte("#!/bin/sh\necho \"$$ early=$OC_MODEL_PRESTARTED $*\" >> \"$MARKER\"\nexec \"$0.real\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	var runArgs func(args []string, extra ...string) (string, error)
	srv := providertest.NewScript(t, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("hello from the model")}})
	m := layerstest.New(t)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/m"}`)
	m.TrustProject()
	run := func(extra ...string) (string, error) {
		return runArgs([]string{"run", "say hello"}, extra...)
	}
	runArgs = func(args []string, extra ...string) (string, error) {
		cmd := exec.Command(filepath.Join(dir, "oceancode"), args...)
		cmd.Dir = m.Project
		cmd.Env = m.Environ(append([]string{"PATH=/usr/bin:/bin", "OPENAI_API_KEY=sk-test", "MARKER=" + marker}, extra...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct {
		name  string
		extra []string
		early string
	}{{"early start", nil, "early=1"}, {"started by the command", []string{"OC_MODEL_PRESTART=0"}, "early= "}} {
		os.Remove(marker)
		out, err := run(c.extra...)
		if err != nil || !strings.Contains(out, "hello from the model") {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		starts, _ := os.ReadFile(marker)
		if got := strings.Count(string(starts), remote.HelperArg); got != 1 {
			t.Errorf("%s: the companion beside oceancode started %d times for one run, want 1:\n%s", c.name, got, starts)
		}
		if !strings.Contains(string(starts), " "+c.early) {
			t.Errorf("%s: companion started with %q, want %q", c.name, starts, c.early)
		}
	}

	// Started during initialisation but not a run after all: gone when
	// oceancode exits (prestart's own test checks it is killed and reaped).
	if out, err := runArgs([]string{"run", "--help"}); err != nil {
		t.Fatalf("run --help: %v\n%s", err, out)
	}
	if left := processesRunning(t, dir); len(left) > 0 {
		t.Errorf("a companion started for run --help outlived oceancode: %s", strings.Join(left, "; "))
	}

	// Missing: the run stops before any model call and says what to do.
	os.Remove(companion)
	before := len(srv.Requests())
	out, err := run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out, "no oceancode-model beside "+filepath.Join(dir, "oceancode")) || !strings.Contains(out, "make build") {
		t.Fatalf("without the companion: %v\n%s", err, out)
	}
	if len(srv.Requests()) != before {
		t.Errorf("a model request was made without a model client")
	}
}

// processesRunning lists live processes whose command line names a file
// under dir.
func processesRunning(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmdline), dir) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}
