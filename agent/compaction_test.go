package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/openai"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/")

func read(id, path string) providertest.Turn {
	t := providertest.Call("read", map[string]string{"path": path})
	t.ToolCalls[0].ID = id
	return t
}

// golden compares got, indented, with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, got, "", "  "); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b.WriteByte('\n')
	path := filepath.Join("testdata", "compaction", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from the request sent (-update rewrites it); sent:\n%s", path, b.String())
	}
}

func compactions(evs []agent.Event) []*agent.Compaction {
	var out []*agent.Compaction
	for _, e := range evs {
		if e.Type == agent.EventCompaction {
			out = append(out, e.Compaction)
		}
	}
	return out
}

// A session scripted past a small context window compacts (prunes the old
// outputs, then summarises the older turns) and finishes its task; the
// summary request and the compacted request are the golden files, and the
// history keeps every byte.
func TestCompactionEndToEnd(t *testing.T) {
	t.Parallel()
	const summary = "## Task\nRead the four files.\n## Decisions\nNone.\n## Files touched\na.txt b.txt c.txt\n## Done so far\nRead a, b, c.\n## What is left\nRead d.txt."
	c, srv, dir := setup(t, permission.Config{},
		read("c1", "a.txt"), read("c2", "b.txt"), read("c3", "c.txt"),
		providertest.Text(summary), // the summary request
		read("c4", "d.txt"), providertest.Text("all four read"))
	// a and b are over the stub size, c is large, d small: the outputs
	// pruned at the threshold are not enough, so the older turns are
	// summarised too.
	for i, lines := range []int{25, 25, 100, 5} {
		line := append(bytes.Repeat([]byte{'a' + byte(i)}, 59), '\n')
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".txt"), bytes.Repeat(line, lines), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.Compaction = compact.Settings{Window: 3000, Threshold: 0.85}
	evs := events(&c)
	prompt := "Read a.txt, b.txt, c.txt and d.txt. " + strings.Repeat("Context that matters. ", 200)
	res, err := agent.Run(context.Background(), c, nil, prompt)
	if err != nil || res.StopReason != "end_turn" || res.Messages[len(res.Messages)-1].TextOf() != "all four read" {
		for _, e := range *evs {
			if e.Type == agent.EventUsage || e.Type == agent.EventCompaction {
				t.Logf("%s %+v %+v %+v", e.Type, e.Usage, e.Context, e.Compaction)
			}
		}
		t.Fatalf("run: %v, stop %q", err, res.StopReason)
	}
	cs := compactions(*evs)
	// At the 4th request: a's output pruned, not enough, the first turns
	// summarised; at the 5th (d's output came in): b's output pruned.
	if len(cs) != 2 || cs[0].Reason != engineapi.CompactAuto || cs[0].Pruned != 1 || cs[0].Summarised != 3 ||
		cs[0].TokensAfter >= cs[0].TokensBefore || cs[0].Window != 3000 || cs[1].Pruned != 1 || cs[1].Summarised != 0 {
		for _, c := range cs {
			t.Logf("%+v", *c)
		}
		t.Fatalf("compactions: %d", len(cs))
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || reqs[3].System != compact.SummarySystem {
		t.Fatalf("%d requests; the 4th should be the summary request", len(reqs))
	}
	golden(t, "summary_request.json", reqs[3].Body)
	golden(t, "summarised_request.json", reqs[4].Body)
	golden(t, "pruned_request.json", reqs[5].Body)
	// The store's view: every message, every byte.
	if len(res.Messages) != 10 || !strings.Contains(res.Messages[2].Parts[0].ToolResult.Content, strings.Repeat("a", 59)) {
		t.Errorf("the history lost what compaction removed from the request: %d messages", len(res.Messages))
	}
	if res.Compacted.SummaryUpto == 0 || res.Compacted.Summary != summary {
		t.Errorf("result's compaction %+v", res.Compacted)
	}
	// The summary's usage counts.
	var n int
	for _, e := range *evs {
		if e.Type == agent.EventUsage {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d usage events, want one per request (6)", n)
	}
}

// A provider's "context too long" answer — each wire format's own status
// and body — is answered with one compaction and one retry; a second one
// ends the run with the error, not a crash.
func TestContextTooLongRetriesOnce(t *testing.T) {
	t.Parallel()
	anthropicTooLong := providertest.Turn{Status: 400, Error: "prompt is too long: 208310 tokens > 200000 maximum"}
	openaiTooLong := providertest.Turn{Status: 400, ErrorCode: "context_length_exceeded",
		Error: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages."}
	for _, tc := range []struct {
		name    string
		tooLong providertest.Turn
		openai  bool
	}{{"anthropic", anthropicTooLong, false}, {"openai", openaiTooLong, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, srv, dir := setup(t, permission.Config{}, read("c1", "a.txt"), tc.tooLong, providertest.Text("## Task\nread a"), providertest.Text("done"))
			if tc.openai {
				p, err := openai.New(provider.Config{Type: "openai", BaseURL: srv.OpenAIURL(), APIKey: providertest.APIKey, Stream: true, RetryBackoff: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				c.Provider = p
			}
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), bytes.Repeat([]byte("x"), 5000), 0o644); err != nil {
				t.Fatal(err)
			}
			evs := events(&c)
			res, err := agent.Run(context.Background(), c, nil, "read a.txt")
			if err != nil || res.StopReason != "end_turn" {
				t.Fatalf("run: %v (%q)", err, res.StopReason)
			}
			cs := compactions(*evs)
			if len(cs) != 1 || cs[0].Reason != engineapi.CompactTooLong || cs[0].Summarised != 1 {
				t.Fatalf("compactions %+v", cs)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 || len(reqs[3].Messages) != 3 || !strings.Contains(reqs[3].Messages[0].TextOf(), "## Task\nread a") {
				t.Fatalf("the retried request is not the compacted one: %d requests", len(reqs))
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		t.Parallel()
		c, srv, _ := setup(t, permission.Config{}, providertest.Text("hi"), anthropicTooLong, providertest.Text("## Task\nsay hi"), anthropicTooLong)
		res, err := agent.Run(context.Background(), c, nil, "say hi")
		if err != nil {
			t.Fatal(err)
		}
		res, err = agent.Run(context.Background(), c, res.Messages, "again")
		if !errors.Is(err, provider.ErrContextTooLong) || res.StopReason != agent.StopError || len(srv.Requests()) != 4 {
			t.Fatalf("second refusal: %v, %q, %d requests", err, res.StopReason, len(srv.Requests()))
		}
	})
}
