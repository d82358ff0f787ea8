package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/internal/hermetictest"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/internal/version"
)

// agentVersion injects this binary's version for one test (never the
// build's own).
func agentVersion(t *testing.T, v string) {
	old := version.Version
	version.Version = v
	t.Cleanup(func() { version.Version = old })
}

// run refuses a model or endpoint the requirements do not allow with exit
// 4, naming the rule, and sends the model nothing.
func TestRunRefusesModelsOutsideTheRequirements(t *testing.T) {
	agentVersion(t, "1.5.0")
	for _, c := range []struct {
		name   string
		policy map[string]any
		want   string
	}{
		{"model", map[string]any{"allowed_models": []any{"anthropic/claude-*"}}, "model mock/m is not allowed by the requirements' allowed_models (anthropic/claude-*)"},
		{"endpoint", map[string]any{"allowed_providers": []any{map[string]any{"type": "openai", "hosts": []any{"llm.corp.example"}}}}, "provider mock (type openai, endpoint 127.0.0.1:"},
		{"scope", map[string]any{"scopes": []any{map[string]any{"name": "everyone", "match": map[string]any{"hosts": []any{"*"}}, "require": map[string]any{"allowed_models": []any{"corp/*"}}}}}, "scope everyone allowed_models (corp/*)"},
		{"version floor", map[string]any{"min_version": "2.1.0"}, "this oceancode is version 1.5.0, older than the requirements' min_version 2.1.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := lockedMachine(t, c.policy)
			srv := mockModel(t, m, "", providertest.Text("hello"))
			code, out, stderr := run1(t, m, "run", "hi")
			if code != 4 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 4 with %q:\n%s%s", code, c.want, out, stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model request(s) for a refused session", n)
			}
		})
	}
	// The same machine with an allowed model runs.
	m := lockedMachine(t, map[string]any{"allowed_models": []any{"mock/*"}, "allowed_providers": []any{map[string]any{"type": "openai", "hosts": []any{"127.0.0.1"}}}, "min_version": "1.5.0"})
	srv := mockModel(t, m, "", providertest.Text("hello"))
	if code, out, stderr := run1(t, m, "run", "hi"); code != 0 || len(srv.Requests()) != 1 {
		t.Errorf("allowed: exit %d, %d request(s)\n%s%s", code, len(srv.Requests()), out, stderr)
	}
}

// A development build satisfies no min_version.
func TestDevBuildRefusedUnderMinVersion(t *testing.T) {
	agentVersion(t, "dev")
	m := lockedMachine(t, map[string]any{"min_version": "0.1.0"})
	mockModel(t, m, "", providertest.Text("hello"))
	code, _, stderr := run1(t, m, "run", "hi")
	if code != 4 || !strings.Contains(stderr, "development build (version dev)") {
		t.Errorf("exit %d, want 4:\n%s", code, stderr)
	}
}

// inspect shows every new kind, in text and JSON, and doctor --policy
// proves each of them.
func TestInspectAndDoctorShowNewKinds(t *testing.T) {
	agentVersion(t, "1.5.0")
	m := lockedMachine(t, map[string]any{
		"min_version":       "1.2.0",
		"allowed_models":    []any{"mock/*"},
		"allowed_providers": []any{map[string]any{"type": "openai", "hosts": []any{"127.0.0.1"}}},
		"instructions":      "Never paste customer data.\nAsk before touching billing/.",
		"scopes": []any{
			map[string]any{"name": "everyone", "match": map[string]any{"hosts": []any{"*"}}, "require": map[string]any{"shell_posture": "default-deny"}},
			map[string]any{"name": "nobody", "match": map[string]any{"groups": []any{"no-such-group-oceancode"}}, "require": map[string]any{"min_version": "9.0.0"}},
		},
	})
	mockModel(t, m, "")
	code, out, stderr := run1(t, m, "inspect")
	if code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"  version at least 1.2.0\n",
		"  models: allowed_models (mock/*)\n",
		"  providers: allowed_providers (openai at 127.0.0.1)\n",
		"  shell posture default-deny: every bash command asks; no lower layer loosens it\n",
		"  scope everyone: applies (hostname ",
		"  scope nobody: does not apply (",
		"    | Never paste customer data.\n    | Ask before touching billing/.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = run1(t, m, "inspect", "--json")
	var rep struct {
		Locks struct {
			MinVersion       string   `json:"min_version"`
			AllowedModels    []string `json:"allowed_models"`
			AllowedProviders []string `json:"allowed_providers"`
			Instructions     string   `json:"instructions"`
			ShellPosture     string   `json:"shell_posture"`
			Scopes           []string `json:"scopes"`
		} `json:"locks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	if l := rep.Locks; l.MinVersion != "1.2.0" || len(l.AllowedModels) != 1 || len(l.AllowedProviders) != 1 || l.ShellPosture != "default-deny" || len(l.Scopes) != 2 || !strings.HasPrefix(l.Instructions, "Never paste") {
		t.Errorf("inspect --json locks: %+v", l)
	}

	code, out, stderr = run1(t, m, "doctor", "--policy")
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("doctor --policy: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"  PASS  version at least 1.2.0, via an agent of version 0.0.1: sessions refused: ",
		"  PASS  version at least 1.2.0, via a development build: sessions refused: ",
		"  PASS  allowed models, via flag --model doctor-probe/not-allowed: refused before any model request: ",
		"  PASS  allowed models, via user config model doctor-probe/not-allowed: refused before any model request: ",
		"  PASS  allowed providers, via user config provider.mock.base_url https://doctor-probe.invalid/v1: refused before any model request: ",
		"  PASS  organisation instructions, via build agent: in the system prompt\n",
		"  PASS  organisation instructions, via sub-agent explore: in the system prompt\n",
		"  PASS  organisation instructions, via agent definition with its own prompt: in the system prompt\n",
		"  PASS  shell posture default-deny, via safe-list command: bash \"ls\": ask by ",
		"  PASS  shell posture default-deny, via user shell.allow: ",
		"  PASS  shell posture default-deny, via user safe_list_extra: ",
		"  PASS  shell posture default-deny, via managed allow rule: ",
		"  PASS  shell posture default-deny, via bypassPermissions: ",
		"  PASS  shell posture default-deny, via \"always\" approval: ",
		"  PASS  scope everyone, via this machine: applies (",
		"  SKIP  scope nobody, via this machine: does not apply (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --policy lacks %q:\n%s", want, out)
		}
	}
}

// Under the default-deny posture, headless --auto does not approve a bash
// command (it approves it without the posture): the command never runs.
// The real binaries run it, so the bash tool runs under its real sandbox.
func TestAutoDoesNotLoosenThePosture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-model": remote.Binary} {
		hermetictest.GoBuild(t, filepath.Join(dir, name), pkg)
	}
	for _, c := range []struct {
		name    string
		policy  map[string]any
		created bool
	}{{"without the posture", map[string]any{"org": "acme"}, true}, {"default-deny", map[string]any{"shell_posture": "default-deny"}, false}} {
		t.Run(c.name, func(t *testing.T) {
			m := lockedMachine(t, c.policy)
			mockModel(t, m, "",
				providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c1", Name: "bash", Input: []byte(`{"command":"touch made-by-model"}`)}}},
				providertest.Text("done"))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(dir, "oceancode"), "run", "--auto", "make a file")
			cmd.Dir, cmd.Env = m.Project, m.Environ("PATH=/usr/bin:/bin")
			out, err := cmd.CombinedOutput()
			_, serr := os.Stat(filepath.Join(m.Project, "made-by-model"))
			if (serr == nil) != c.created {
				t.Errorf("file created: %v, want %v (%v)\n%s", serr == nil, c.created, err, out)
			}
			if !c.created && !strings.Contains(string(out), "cannot ask for approval") {
				t.Errorf("the refusal is not said:\n%s", out)
			}
		})
	}
}
