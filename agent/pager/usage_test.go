package pager

import (
	"context"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/modelinfo"
	"github.com/oceancode/oceancode/agent/pager/pagerlocal"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
)

// TestCompactAndCost: /compact compacts the real session (its event is a
// notice in the scrollback and on the status line), the status line
// carries the context gauge and the cost, and /cost the session's tokens.
func TestCompactAndCost(t *testing.T) {
	f := newFixture(t, providertest.Text("a1"), providertest.Text("a2"), providertest.Text("## Task\nchat"))
	cfg := f.config()
	cfg.Compaction.Window = 100_000
	cfg.Price = &modelinfo.Price{Input: 3, Output: 15}
	s, err := runner.Start(context.Background(), runner.Options{Turn: cfg, Store: f.store, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, p := range []string{"one", "two"} {
		if _, err := s.Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, pagerlocal.New(s, f.hooks), 200, 30, true)
	h.until("the replayed usage", func() bool { return h.m.ctxUse != nil })
	h.send(commandMsg{"compact", []string{"the", "names"}})
	h.until("the compaction notice", func() bool {
		return strings.Contains(h.printed(), "compacted (on request): summarised 1 earlier messages")
	})
	line := h.m.statusLine()
	for _, w := range []string{"ctx ", "% of 100k", "$0.00", "context compacted"} {
		if !strings.Contains(line, w) {
			t.Errorf("status line lacks %q: %s", w, line)
		}
	}
	h.send(commandMsg{"cost", nil})
	h.settle()
	out := h.printed()
	for _, w := range []string{"session: ", " in · ", "cost: $0.0", "context: "} {
		if !strings.Contains(out, w) {
			t.Errorf("/cost lacks %q:\n%s", w, out)
		}
	}
}
