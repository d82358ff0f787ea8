package sessionconfig_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/openai"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/sessionconfig"
)

// build resolves the machine's layers with the request's settings, as run
// does, and builds the session; got receives the provider config Build
// asked the host for.
func build(t *testing.T, m *layerstest.Machine, req sessionconfig.Request, got *provider.Config) (*sessionconfig.Session, *layers.Resolved, error) {
	t.Helper()
	o := m.Options()
	o.Flags = req.Settings()
	res := layers.Resolve(o)
	h := sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project,
		Provider: func(c provider.Config) (provider.Provider, error) {
			if got != nil {
				*got = c
			}
			if c.Type == "anthropic" {
				return anthropic.New(c)
			}
			return openai.New(c)
		}}
	s, err := sessionconfig.Build(context.Background(), res, req, h)
	if err == nil {
		t.Cleanup(s.Close)
	}
	return s, res, err
}

func TestBuild(t *testing.T) {
	type check func(t *testing.T, s *sessionconfig.Session, pc provider.Config)
	for _, c := range []struct {
		name  string
		user  string
		env   map[string]string
		req   sessionconfig.Request
		check check
	}{
		{
			name: "provider from config, key from its variable",
			user: `{"model": "local/qwen3-coder", "provider": {"local": {"type": "openai", "base_url": "http://127.0.0.1:8000/v1", "api_key_env": "LOCAL_KEY", "headers": {"X-Team": "a"}, "stream": false}}}`,
			env:  map[string]string{"LOCAL_KEY": "k-123"},
			check: func(t *testing.T, s *sessionconfig.Session, pc provider.Config) {
				want := provider.Config{Type: "openai", BaseURL: "http://127.0.0.1:8000/v1", APIKey: "k-123", Headers: map[string]string{"X-Team": "a"}}
				if pc.Type != want.Type || pc.BaseURL != want.BaseURL || pc.APIKey != want.APIKey || pc.Headers["X-Team"] != "a" || pc.Stream {
					t.Errorf("provider config = %+v, want %+v", pc, want)
				}
				if s.Turn.Model != "qwen3-coder" || s.Turn.Agent != agent.Build {
					t.Errorf("model %q agent %q", s.Turn.Model, s.Turn.Agent)
				}
			},
		},
		{
			name: "a vendor without a provider entry, its default key variable",
			req:  sessionconfig.Request{Model: "anthropic/claude-sonnet-4-5"},
			env:  map[string]string{"ANTHROPIC_API_KEY": "ak"},
			check: func(t *testing.T, s *sessionconfig.Session, pc provider.Config) {
				if pc.Type != "anthropic" || pc.APIKey != "ak" || !pc.Stream {
					t.Errorf("provider config = %+v", pc)
				}
			},
		},
		{
			name: "limits from config",
			user: `{"model": "openai/gpt-5", "limits": {"max_turns": 7, "timeout_s": 90, "max_tokens": 4096}}`,
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				if s.Turn.MaxTurns != 7 || s.Turn.Timeout != 90*time.Second || s.Turn.MaxTokens != 4096 {
					t.Errorf("limits %d %v %d", s.Turn.MaxTurns, s.Turn.Timeout, s.Turn.MaxTokens)
				}
			},
		},
		{
			name: "the request's limits win",
			user: `{"model": "openai/gpt-5", "limits": {"max_turns": 7, "timeout_s": 90}}`,
			req:  sessionconfig.Request{MaxTurns: 2, Timeout: time.Second, Auto: true},
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				if s.Turn.MaxTurns != 2 || s.Turn.Timeout != time.Second || !s.Turn.Auto {
					t.Errorf("limits %d %v auto %v", s.Turn.MaxTurns, s.Turn.Timeout, s.Turn.Auto)
				}
			},
		},
		{
			name: "the request's model and mode are session-layer settings",
			user: `{"model": "openai/gpt-5", "permission_mode": "acceptEdits"}`,
			req:  sessionconfig.Request{Model: "openai/gpt-4.1", PermissionMode: "plan"},
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				if s.Turn.Model != "gpt-4.1" || s.Turn.Gate.Engine().Mode() != permission.Plan {
					t.Errorf("model %q mode %s", s.Turn.Model, s.Turn.Gate.Engine().Mode())
				}
			},
		},
		{
			name: "a custom agent: its mode, its prompt",
			user: `{"model": "openai/gpt-5", "agents": {"reviewer": {"permission_mode": "plan", "prompt": "Review the diff."}}}`,
			req:  sessionconfig.Request{Agent: "reviewer"},
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				if s.Turn.Gate.Engine().Mode() != permission.Plan || !strings.Contains(s.Turn.System, "Review the diff.") {
					t.Errorf("mode %s system %q", s.Turn.Gate.Engine().Mode(), s.Turn.System)
				}
			},
		},
		{
			name: "sandbox and child environment from config",
			user: `{"model": "openai/gpt-5", "sandbox": {"enabled": true, "mode": "read-only", "deny": ["secrets"]}, "child_env": {"set": {"FOO": "bar"}}, "refs": {"docs": "/srv/docs"}}`,
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				env := s.Turn.Env
				if env.Sandbox.EffectiveMode() != sandbox.ModeReadOnly || len(env.Sandbox.Deny) != 1 {
					t.Errorf("sandbox %+v", env.Sandbox)
				}
				if !strings.Contains(strings.Join(env.ChildEnv, "\n"), "FOO=bar") {
					t.Errorf("child env lacks FOO=bar")
				}
				if env.Boundary.Refs["docs"] != "/srv/docs" {
					t.Errorf("refs %v", env.Boundary.Refs)
				}
				if env.Cwd == "" || env.Sandbox.Workspace == "" {
					t.Errorf("cwd %q workspace %q", env.Cwd, env.Sandbox.Workspace)
				}
			},
		},
		{
			name: "an allowlisted network starts the egress proxy; Close stops it",
			user: `{"model": "openai/gpt-5", "sandbox": {"enabled": true, "network": "allowlist", "allow_hosts": ["example.com"]}}`,
			check: func(t *testing.T, s *sessionconfig.Session, _ provider.Config) {
				if s.Turn.Env.Sandbox.Egress == nil {
					t.Fatal("no egress proxy")
				}
				s.Close()
				s.Close() // twice is fine
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			if c.user != "" {
				m.UserConfig(c.user)
			}
			for k, v := range c.env {
				m.Env[k] = v
			}
			var pc provider.Config
			s, res, err := build(t, m, c.req, &pc)
			if err != nil {
				t.Fatalf("Build: %v (diagnostics %v)", err, res.Diagnostics)
			}
			if len(s.Turn.Tools) == 0 || s.Turn.Gate == nil || s.Turn.Provider == nil || s.Turn.Redact == nil || s.Close == nil {
				t.Errorf("incomplete turn config: %+v", s.Turn)
			}
			c.check(t, s, pc)
		})
	}
}

func TestBuildErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		user string
		req  sessionconfig.Request
		kind error
		want string
	}{
		{name: "no model", kind: sessionconfig.ErrUsage, want: "no model: pass --model PROVIDER/MODEL"},
		{name: "no model over the API", req: sessionconfig.Request{Via: "api"}, kind: sessionconfig.ErrUsage, want: `no model: send "model": "PROVIDER/MODEL" in the request`},
		{name: "unknown provider", req: sessionconfig.Request{Model: "corp/m1"}, kind: sessionconfig.ErrUsage, want: `no provider "corp" is configured`},
		{name: "a key in api_key_env", user: `{"provider": {"openai": {"type": "openai", "api_key_env": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}}`,
			req: sessionconfig.Request{Model: "openai/gpt-5"}, kind: sessionconfig.ErrInvalid, want: "api_key_env holds what looks like an API key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			if c.user != "" {
				m.UserConfig(c.user)
			}
			o := m.Options()
			o.Flags = c.req.Settings()
			res := layers.Resolve(o)
			if err := res.Err(); err != nil {
				t.Fatalf("the layers refuse the config: %v", err)
			}
			s, err := sessionconfig.Build(context.Background(), res, c.req, sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project,
				Provider: func(pc provider.Config) (provider.Provider, error) { return openai.New(pc) }})
			if err == nil {
				s.Close()
				t.Fatal("Build succeeded")
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			other := sessionconfig.ErrUsage
			if c.kind == sessionconfig.ErrUsage {
				other = sessionconfig.ErrInvalid
			}
			if errors.Is(err, other) {
				t.Errorf("error %q is also %v", err, other)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestBuildRefuses: a bad request is a usage error; a configuration the
// layers refused is their error, whatever the caller checked before.
func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(m *layerstest.Machine)
		req   sessionconfig.Request
		kind  error
		want  string
	}{
		{name: "unknown mode", req: sessionconfig.Request{PermissionMode: "yolo"}, kind: sessionconfig.ErrUsage, want: `check request permission_mode: permission: parse mode "yolo"`},
		{name: "unknown sandbox", req: sessionconfig.Request{Sandbox: "none"}, kind: sessionconfig.ErrUsage, want: `check request sandbox "none": want one of read-only, workspace-write, danger-full-access`},
		{name: "negative max turns", req: sessionconfig.Request{MaxTurns: -1}, kind: sessionconfig.ErrUsage, want: "check request max_turns -1"},
		{name: "negative timeout", req: sessionconfig.Request{Timeout: -time.Second}, kind: sessionconfig.ErrUsage, want: "check request timeout -1s"},
		{name: "broken config file", setup: func(m *layerstest.Machine) { m.UserConfig(`{"model": 5}`) }, kind: layers.ErrInvalidConfig, want: "configuration is invalid"},
		{name: "requirements refused", setup: func(m *layerstest.Machine) {
			m.Anchor() // trusts the machine's key; another signs the policy
			m.Key = layerstest.FixedKey("someone else")
			m.Requirements(1, map[string]any{"disable_bypass_permissions": false})
		}, kind: layers.ErrRequirementsRefused},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			if c.setup != nil {
				c.setup(m)
			}
			o := m.Options()
			o.StateReadOnly = true
			_, err := sessionconfig.Build(context.Background(), layers.Resolve(o), c.req, sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project})
			if !errors.Is(err, c.kind) || !strings.Contains(fmt.Sprint(err), c.want) {
				t.Fatalf("err = %v, want %v containing %q", err, c.kind, c.want)
			}
		})
	}
}

func TestSubAgent(t *testing.T) {
	m := layerstest.New(t)
	m.UserConfig(`{"model": "openai/gpt-5", "permission_mode": "acceptEdits",
	  "agents": {"reviewer": {"mode": "subagent", "permission_mode": "plan", "prompt": "Review only.",
	    "permission": {"bash": {"git diff:*": "allow"}}}}}`)
	s, _, err := build(t, m, sessionconfig.Request{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := s.SubAgent("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if sub.Agent != "reviewer" || sub.Gate == s.Turn.Gate || sub.Gate.Engine().Mode() != permission.Plan {
		t.Errorf("sub-agent %q mode %s", sub.Agent, sub.Gate.Engine().Mode())
	}
	if !strings.Contains(sub.System, "Review only.") {
		t.Errorf("sub-agent prompt %q", sub.System)
	}
	if sub.Provider != s.Turn.Provider || sub.Model != s.Turn.Model || sub.Redact == nil || len(sub.Tools) != len(s.Turn.Tools) {
		t.Error("the sub-agent does not share the session's model")
	}
	if sub.Env != nil {
		t.Error("the sub-agent has an environment of its own, not the session's")
	}
	if sub.Notices != nil || sub.OnEvent != nil {
		t.Error("the sub-agent inherits the session's notices or event sink")
	}
	// Its own rules decide, within the session's boundary.
	r := sub.Gate.Check(gateCall("bash", "git diff HEAD"))
	if r.Action != permission.Allow {
		t.Errorf("git diff under the reviewer: %s by %s", r.Action, r.Decider())
	}
	explore, err := s.SubAgent("")
	if err != nil {
		t.Fatal(err)
	}
	if explore.Agent != agent.Explore {
		t.Errorf("default sub-agent %q, want explore", explore.Agent)
	}
	// The session's own gate is unchanged.
	if s.Turn.Gate.Engine().Mode() != permission.AcceptEdits {
		t.Errorf("session mode %s", s.Turn.Gate.Engine().Mode())
	}
}

// TestDowngradesAsNotices: a mode and a sandbox the requirements refuse
// become warnings and mode_change notices, each naming where the request
// came from.
func TestDowngradesAsNotices(t *testing.T) {
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(1, map[string]any{"disable_bypass_permissions": true, "min_sandbox_mode": "workspace-write"})
	cfg := m.UserConfig(`{"model": "openai/gpt-5", "permission_mode": "bypassPermissions"}`)
	s, res, err := build(t, m, sessionconfig.Request{Sandbox: "danger-full-access"}, nil)
	if err != nil {
		t.Fatalf("Build: %v (%v)", err, res.Err())
	}
	if got := s.Turn.Gate.Engine().Mode(); got == permission.BypassPermissions {
		t.Fatalf("the session runs in %s", got)
	}
	keys := map[string]agent.Event{}
	for _, e := range s.Turn.Notices {
		if e.Type != agent.EventModeChange {
			t.Errorf("notice of type %s", e.Type)
		}
		keys[e.Key] = e
	}
	mode, ok := keys[sessionconfig.PermissionMode.Path()]
	if !ok || mode.Requested != "bypassPermissions" || !strings.Contains(mode.Text, cfg) {
		t.Errorf("permission_mode notice %+v (config %s)", mode, cfg)
	}
	sb, ok := keys[sessionconfig.SandboxMode.Path()]
	if !ok || sb.Requested != "danger-full-access" || !strings.Contains(sb.Text, "flag:--sandbox") {
		t.Errorf("sandbox.mode notice %+v", sb)
	}
	if len(s.Warnings) < len(s.Turn.Notices) {
		t.Errorf("warnings %q for %d notices", s.Warnings, len(s.Turn.Notices))
	}
	for _, e := range s.Turn.Notices {
		found := false
		for _, w := range s.Warnings {
			found = found || w == e.Text
		}
		if !found {
			t.Errorf("notice %q is not among the warnings %q", e.Text, s.Warnings)
		}
	}
	// Downgrades lists the same, for the front ends' own checks.
	if ds := sessionconfig.Downgrades(res, sessionconfig.ModeKeys("")...); len(ds) != 1 || ds[0].From.Layer != provenance.User {
		t.Errorf("Downgrades(mode) = %+v", ds)
	}
}

func TestRequestSettings(t *testing.T) {
	r := sessionconfig.Request{Model: "openai/gpt-5", PermissionMode: "plan", Sandbox: "read-only"}
	got := map[string]string{}
	for _, s := range r.Settings() {
		got[s.Key] = fmt.Sprint(s.Value) + " " + s.Source
	}
	want := map[string]string{"model": "openai/gpt-5 flag:--model", "permission_mode": "plan flag:--permission-mode", "sandbox.mode": "read-only flag:--sandbox"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Settings() = %v, want %v", got, want)
	}
	r.Via = "api"
	for _, s := range r.Settings() {
		if s.Source != "api:"+s.Key {
			t.Errorf("setting %s from %s, want api:%s", s.Key, s.Source, s.Key)
		}
	}
	if n := len((sessionconfig.Request{Auto: true}).Settings()); n != 0 {
		t.Errorf("%d settings from an empty request", n)
	}
}

// TestWarnBeforeFailure: a warning reaches Host.Warn even when Build then fails.
func TestWarnBeforeFailure(t *testing.T) {
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(1, map[string]any{"disable_bypass_permissions": true})
	o := m.Options()
	o.Flags = sessionconfig.Request{PermissionMode: "bypassPermissions"}.Settings()
	var warned []string
	_, err := sessionconfig.Build(context.Background(), layers.Resolve(o), sessionconfig.Request{}, sessionconfig.Host{
		Getenv: m.Getenv, WorkDir: m.Project, Warn: func(l string) { warned = append(warned, l) }})
	if !errors.Is(err, sessionconfig.ErrUsage) {
		t.Fatalf("err = %v, want the usage error of no model", err)
	}
	if len(warned) == 0 || !strings.Contains(warned[0], "flag:--permission-mode") {
		t.Errorf("warned %q", warned)
	}
}

func gateCall(tool, input string) gate.Call { return gate.Call{Tool: tool, Input: input} }

// BenchmarkBuild is one session's config from an already resolved
// configuration (what serve pays per POST /api/session besides resolving).
func BenchmarkBuild(b *testing.B) {
	m := layerstest.New(b)
	m.UserConfig(`{"model": "local/m", "provider": {"local": {"type": "openai", "base_url": "http://127.0.0.1:1/v1"}},
	  "shell": {"allow": ["Bash(make:*)"]}, "permission": {"bash": {"git status": "allow"}}, "limits": {"max_turns": 9}}`)
	res := m.Resolve()
	p, err := openai.New(provider.Config{Type: "openai", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		b.Fatal(err)
	}
	h := sessionconfig.Host{Getenv: m.Getenv, WorkDir: m.Project,
		Provider: func(provider.Config) (provider.Provider, error) { return p, nil }}
	b.ReportAllocs()
	for b.Loop() {
		s, err := sessionconfig.Build(context.Background(), res, sessionconfig.Request{}, h)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
