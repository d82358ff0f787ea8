package sessionconfig_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/sessionconfig"
)

// TestReconfigure: a running session's model switch goes through the
// requirements' allowed_models like the first model, its agent switch
// brings the agent's gate and prompt, an unknown agent is a usage error;
// the status strings name the sandbox and the signed policy.
func TestReconfigure(t *testing.T) {
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(1, map[string]any{"allowed_models": []any{"anthropic/claude-*"}})
	m.UserConfig(`{"model": "anthropic/claude-sonnet-4-5", "sandbox": {"mode": "read-only"},
	  "agents": {"reviewer": {"permission_mode": "plan", "prompt": "Review only."}}}`)
	calls := new(int)
	s, err := sessionconfig.Build(context.Background(), layers.Resolve(m.Options()), sessionconfig.Request{}, sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project,
		Provider: func(provider.Config) (provider.Provider, error) { *calls++; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if s.Sandbox != "read-only" || s.Policy != "signed, serial 1" {
		t.Errorf("status: sandbox %q, policy %q", s.Sandbox, s.Policy)
	}
	ctx := context.Background()
	if _, err := s.Reconfigure(ctx, "", "openai/gpt-5"); !errors.Is(err, layers.ErrRequirementsRefused) || !strings.Contains(err.Error(), "allowed_models") {
		t.Errorf("a refused model: %v", err)
	}
	if *calls != 1 {
		t.Errorf("the refused model reached the host's provider (%d calls)", *calls)
	}
	c, err := s.Reconfigure(ctx, "", "anthropic/claude-opus-4-1")
	if err != nil || c.Model != "claude-opus-4-1" || *calls != 2 {
		t.Errorf("an allowed model: %+v, %v", c.Model, err)
	}
	if _, err := s.Reconfigure(ctx, "", "no-slash"); !errors.Is(err, sessionconfig.ErrUsage) {
		t.Errorf("a model not PROVIDER/MODEL: %v", err)
	}
	c, err = s.Reconfigure(ctx, "reviewer", "")
	if err != nil || c.Agent != "reviewer" || c.Gate == s.Turn.Gate || c.Gate.Engine().Mode() != permission.Plan || !strings.Contains(c.System, "Review only.") || len(c.Tools) == 0 || c.Extra == nil {
		t.Fatalf("agent reviewer: %+v, %v", c, err)
	}
	if _, err := s.Reconfigure(ctx, "plan", ""); err != nil {
		t.Errorf("the built-in plan agent: %v", err)
	}
	if _, err := s.Reconfigure(ctx, "nobody", ""); !errors.Is(err, sessionconfig.ErrUsage) {
		t.Errorf("an unknown agent: %v", err)
	}
}

// TestPolicyStatusNone: without a trusted key the policy status is none.
func TestPolicyStatusNone(t *testing.T) {
	m := layerstest.New(t)
	if got := sessionconfig.PolicyStatus(layers.Resolve(m.Options())); got != "none" {
		t.Errorf("policy status %q", got)
	}
}

// TestOutsideAProject: outside any project the working directory is the
// root of the session's own gate as of a switched agent's: the same read
// is decided the same way by both (not denied as unresolvable by the
// first).
func TestOutsideAProject(t *testing.T) {
	m := layerstest.New(t)
	m.UserConfig(`{"model": "anthropic/claude-sonnet-4-5"}`)
	if err := os.RemoveAll(filepath.Join(m.Project, ".git")); err != nil {
		t.Fatal(err)
	}
	res := layers.Resolve(m.Options())
	if res.ProjectRoot != "" {
		t.Fatalf("project root %q, want none", res.ProjectRoot)
	}
	s, err := sessionconfig.Build(context.Background(), res, sessionconfig.Request{}, sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project,
		Provider: func(provider.Config) (provider.Provider, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c, err := s.Reconfigure(context.Background(), "build", "")
	if err != nil {
		t.Fatal(err)
	}
	call := gate.Call{Tool: "read", Input: "a.txt", Cwd: m.Project}
	first, switched := s.Turn.Gate.Check(call).Decision, c.Gate.Check(call).Decision
	if first.Action != permission.Allow || first.Action != switched.Action || first.Reason != switched.Reason {
		t.Errorf("read a.txt: the session's gate %+v, a switched agent's %+v", first, switched)
	}
}
