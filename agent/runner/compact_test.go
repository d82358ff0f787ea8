package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestCompactOnDemandAndResume: Compact summarises between turns with the
// session's model, the store keeps the whole history, and a resumed
// session sends the compacted view again (the compaction event's state).
func TestCompactOnDemandAndResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("a1"), providertest.Text("a2"),
		providertest.Text("## Task\nsay things"), providertest.Text("a3"))
	o := f.options()
	s := f.start(o)
	ctx := context.Background()
	for _, p := range []string{"one", "two"} {
		if _, err := s.Run(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.Compact(ctx, "the names")
	if err != nil || rep.Reason != "manual" || rep.Summarised != 1 || rep.Focus != "the names" {
		t.Fatalf("compact: %+v, %v", rep, err)
	}
	if sum := f.srv.Requests()[2]; !strings.Contains(sum.Messages[0].TextOf(), "Keep in particular what concerns: the names") {
		t.Errorf("summary request without the focus: %q", sum.Messages[0].TextOf())
	}
	if u := s.State().Usage; u.InputTokens == 0 {
		t.Error("the summary's usage was not counted")
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	o.Resume = id
	s2 := f.start(o)
	if _, err := s2.Run(ctx, "three"); err != nil {
		t.Fatal(err)
	}
	last := f.srv.Requests()[3]
	if len(last.Messages) != 5 || !strings.Contains(last.Messages[0].TextOf(), "## Task\nsay things") || last.Messages[1].TextOf() != "a1" {
		t.Fatalf("resumed request is not the compacted view: %d messages, first %q", len(last.Messages), last.Messages[0].TextOf())
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	stored, err := f.store.Messages(ctx, id)
	if err != nil || len(stored) != 6 || stored[0].TextOf() != "one" {
		t.Fatalf("the store lost history: %d messages, %v", len(stored), err)
	}
}
