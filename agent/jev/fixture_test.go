package jev

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/provenance"
)

// model is a real Anthropic client against a loopback scripted server.
func model(t testing.TB, srv *providertest.Server) provider.Provider {
	t.Helper()
	p, err := anthropic.New(provider.Config{Type: "anthropic", BaseURL: srv.AnthropicURL(), APIKey: providertest.APIKey,
		Stream: true, MaxRetries: -1, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// answer is a scripted turn answering s.
func answer(s Scores) providertest.Turn {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return providertest.Turn{Text: string(b)}
}

var (
	safeScores   = Scores{Destructive: 5, Egress: 0, Undoable: 95, Blast: BlastFile}
	unsafeScores = Scores{Destructive: 85, Egress: 10, Undoable: 20, Blast: BlastProject}
)

// project classifies commands under bash * ask in a project directory,
// with a real shell guard and a real permission engine (through the gate).
type project struct {
	t    testing.TB
	root string
	g    *gate.Gate
}

func newProject(t testing.TB, root string, extra ...permission.Rule) *project {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	cfg := EvalPermissions()
	cfg.Rules = append(cfg.Rules, extra...)
	g, err := gate.New(gate.Config{Permission: cfg, Shell: shellguard.Config{ProjectRoot: root, Home: "/home/nobody"}})
	if err != nil {
		t.Fatal(err)
	}
	return &project{t: t, root: root, g: g}
}

// ask classifies cmd run in cwd (relative to the root, "" the root).
func (p *project) ask(cmd, cwd string) (Request, permission.Decision) {
	dir := absCwd(p.root, cwd)
	r := p.g.Check(gate.Call{Tool: "bash", Input: cmd, Cwd: dir})
	return Request{Command: cmd, Cwd: dir, ProjectRoot: p.root, Shell: r.Shell, UserMessages: []string{"tidy up the repo"}}, r.Decision
}

var userOrigin = provenance.Origin{Layer: provenance.User, Source: "user.json", Line: 2}

func newAdvisor(t testing.TB, mode Mode, p provider.Provider) *Advisor {
	t.Helper()
	a, err := New(Config{Mode: mode, Provider: p, Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
