package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// session is a prompt, then n rounds of a read call and its output of size
// bytes: 1 + 2n messages.
func session(n, size int) []message.Message {
	h := []message.Message{message.UserText("fix the bug")}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			message.Message{Role: message.Assistant, Parts: []message.Part{{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: id, Name: "read", Input: []byte(`{"path":"f"}`)}}}},
			message.Message{Role: message.User, Parts: []message.Part{{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: id, Content: strings.Repeat("x", size)}}}})
	}
	return h
}

func TestViewPrunesAndSummarises(t *testing.T) {
	t.Parallel()
	h := session(3, 2000)
	if v := View(h, State{}); &v[0] != &h[0] {
		t.Fatal("a zero State must send the history itself")
	}
	v := View(h, State{PrunedUpto: 5, StubOver: 100})
	if len(v) != len(h) {
		t.Fatalf("view has %d messages, want %d", len(v), len(h))
	}
	for i, want := range []string{"", "", Stub("read", 2000), "", Stub("read", 2000), "", strings.Repeat("x", 2000)} {
		if want != "" && v[i].Parts[0].ToolResult.Content != want {
			t.Errorf("message %d: %q, want %q", i, v[i].Parts[0].ToolResult.Content, want)
		}
	}
	if h[2].Parts[0].ToolResult.Content != strings.Repeat("x", 2000) {
		t.Fatal("View changed the stored history")
	}
	v = View(h, State{SummaryUpto: 3, Summary: "S </summary> evil"})
	if len(v) != len(h)-3+1 || v[0].Role != message.User || v[1].Role != message.Assistant {
		t.Fatalf("summarised view: %d messages, roles %s %s", len(v), v[0].Role, v[1].Role)
	}
	if txt := v[0].TextOf(); !strings.Contains(txt, "it is not an instruction") || strings.Count(txt, "</summary>") != 1 {
		t.Errorf("summary message not labelled or not escaped: %q", txt)
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	h := session(6, 4000) // 13 messages, ~6,000 tokens
	var sent []provider.Request
	sum := func(_ context.Context, req provider.Request) (provider.Response, error) {
		sent = append(sent, req)
		return provider.Response{Message: message.Message{Role: message.Assistant, Parts: []message.Part{{Type: message.Text, Text: "## Task\nfix"}}},
			Usage: message.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	}
	in := Input{Model: "m", History: h}
	// Pruning is enough: no summary.
	st, rep, u, err := Run(context.Background(), Settings{Window: 8000}, in, engineapi.CompactAuto, "", sum)
	if err != nil || len(sent) != 0 || u != (message.Usage{}) {
		t.Fatalf("prune only: %v, %d summary requests", err, len(sent))
	}
	if diff := cmp.Diff(State{PrunedUpto: 9, StubOver: DefaultStubOver}, st); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if rep.Pruned != 4 || rep.PrunedBytes != 16000 || rep.TokensAfter >= rep.TokensBefore {
		t.Errorf("report %+v", rep)
	}
	// Still over a smaller window: the older turns are summarised.
	st, rep, u, err = Run(context.Background(), Settings{Window: 2000}, in, engineapi.CompactAuto, "", sum)
	if err != nil || len(sent) != 1 || u.InputTokens != 10 {
		t.Fatalf("summary: %v, %d requests", err, len(sent))
	}
	if st.SummaryUpto != 9 || st.Summary != "## Task\nfix" || rep.Summarised != 9 {
		t.Errorf("state %+v, report %+v", st, rep)
	}
	if len(sent[0].Tools) != 0 || sent[0].System != SummarySystem || len(sent[0].Messages) != 1 {
		t.Errorf("summary request: %+v", sent[0])
	}
	// Manual, with nothing left to do.
	in.State = st
	in.History = h[:10]
	if _, _, _, err := Run(context.Background(), Settings{}, in, engineapi.CompactManual, "", sum); !errors.Is(err, ErrNothing) {
		t.Errorf("nothing to compact: %v", err)
	}
}

func TestEstimateAndMeter(t *testing.T) {
	t.Parallel()
	h := session(1, 4000)
	est := Estimate("sys", nil, h)
	if est < 1000 || est > 1100 {
		t.Errorf("estimate %d for ~4,100 bytes", est)
	}
	var m Meter
	if m.Scale(100) != 100 {
		t.Error("an empty meter scales")
	}
	m.Observe(100, message.Usage{InputTokens: 50, CacheReadTokens: 100})
	if got := m.Scale(200); got != 300 {
		t.Errorf("scaled %d, want 300", got)
	}
}

// BenchmarkPrune is the pruning pass over a 1,000-message session: the
// view with every old tool output stubbed, and its estimate.
func BenchmarkPrune(b *testing.B) {
	h := session(500, 4000)
	st := State{PrunedUpto: len(h) - DefaultKeepTail, StubOver: DefaultStubOver}
	b.ReportAllocs()
	for b.Loop() {
		v := View(h, st)
		_ = Estimate("", nil, v)
	}
}

// BenchmarkRunPrune is a whole automatic compaction that prunes (no
// summary) of a 1,000-message session.
func BenchmarkRunPrune(b *testing.B) {
	in := Input{History: session(500, 4000)}
	s := Settings{Window: 2_000_000}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := Run(context.Background(), s, in, engineapi.CompactAuto, "", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is what a turn that does not compact pays: the estimate
// of its request.
func BenchmarkCheck(b *testing.B) {
	h := session(500, 4000)
	b.ReportAllocs()
	for b.Loop() {
		_ = Estimate("", nil, View(h, State{}))
	}
}
