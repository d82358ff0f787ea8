// Package runnertest holds the parts tests of a real session share: the
// scripted loopback model behind the real Anthropic client, a gate over a
// temporary workspace, the built-in tools, and what the model was sent.
package runnertest

import (
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
)

// Origin is where the rules of Rule come from: the project's test.json,
// line 1.
var Origin = provenance.Origin{Layer: provenance.Project, Source: "test.json", Line: 1}

// Rule is a permission rule from Origin.
func Rule(key, pattern string, action permission.Action) permission.Rule {
	return permission.Rule{Key: key, Pattern: pattern, Action: action, Origin: Origin}
}

// Gate is the gate over the workspace dir (its project root and home) in
// mode, with locks and rules.
func Gate(t testing.TB, dir string, mode permission.Mode, locks permission.Locks, rules ...permission.Rule) *gate.Gate {
	t.Helper()
	g, err := gate.New(gate.Config{
		Permission: permission.Config{Mode: mode, Locks: locks, Rules: rules},
		Shell:      shellguard.Config{ProjectRoot: dir, Home: dir},
		Boundary:   fsguard.Boundary{ProjectRoot: dir},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Provider is the real Anthropic client (streaming, retries after 1 ms)
// talking to srv.
func Provider(t testing.TB, srv *providertest.Server) provider.Provider {
	t.Helper()
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey,
		Stream: true, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Config is a turn of the build agent (model claude-test) with p and g,
// the built-in tools, in the workspace dir (its cwd and HOME; bash with
// PATH=/usr/bin:/bin and 20 s).
func Config(dir string, p provider.Provider, g *gate.Gate) agent.Config {
	tracker := &fsguard.Tracker{}
	tracker.Start(time.Now())
	return agent.Config{Agent: agent.Build, Model: "claude-test", System: "test", Provider: p, Gate: g,
		Tools: tools.Builtins(), MaxTurns: 10,
		Env: &tools.Env{Boundary: fsguard.Boundary{ProjectRoot: dir}, Cwd: dir, Tracker: tracker,
			ChildEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}, BashTimeout: 20 * time.Second, Todos: &tools.TodoList{}}}
}

// LastResult is the content of the last tool result the model was sent
// (failing t when the last request has none).
func LastResult(t testing.TB, srv *providertest.Server) string {
	t.Helper()
	ms := lastMessages(t, srv)
	for i := len(ms) - 1; i >= 0; i-- {
		for _, p := range ms[i].Parts {
			if p.Type == message.ToolOutput {
				return p.ToolResult.Content
			}
		}
	}
	t.Fatal("no tool result in the last request")
	return ""
}

// LastPrompt is the last user text the model was sent ("" when none).
func LastPrompt(t testing.TB, srv *providertest.Server) string {
	t.Helper()
	ms := lastMessages(t, srv)
	for i := len(ms) - 1; i >= 0; i-- {
		for _, p := range ms[i].Parts {
			if p.Type == message.Text && ms[i].Role == message.User {
				return p.Text
			}
		}
	}
	return ""
}

func lastMessages(t testing.TB, srv *providertest.Server) []message.Message {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was sent no request")
	}
	return reqs[len(reqs)-1].Messages
}
