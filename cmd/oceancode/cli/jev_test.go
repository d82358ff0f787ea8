package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestJevExport: jev export writes the labelled decisions of every session
// (or one, --session) as JSON lines with the stable fields and version, to
// stdout or --out; an unknown session is a usage error.
func TestJevExport(t *testing.T) {
	m := layerstest.New(t)
	app, out, errb := machineApp(t, m)
	ctx := context.Background()
	st, err := openStore(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 2 {
		s, err := st.Create(ctx, session.Meta{Agent: "build", Model: "m", Mode: "default", Cwd: m.Project})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
		for j, label := range []string{"once", ""} {
			a := session.Advice{Seq: int64(j + 1), CallID: "call_" + string(rune('a'+j)), Key: "sha256:k", Command: "touch x", Status: "safe", Mode: "shadow",
				Scores: json.RawMessage(`{"destructive":0,"network_egress":0,"easily_undone":95,"blast_radius":"project"}`), Label: label}
			if i == 1 {
				a.Label, a.Status, a.Mode, a.Acted = "jev", "safe", "act", label != ""
			}
			if err := st.AddAdvice(ctx, s.ID, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()

	if code := Main(ctx, []string{"jev", "export"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 { // session 1: one labelled of two; session 2: both
		t.Fatalf("export:\n%s", out)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["version"] != float64(1) || rec["session"] != ids[0] || rec["label"] != "once" || rec["command"] != "touch x" {
		t.Errorf("record %s", lines[0])
	}

	out.Reset()
	file := filepath.Join(t.TempDir(), "labels.jsonl")
	if code := Main(ctx, []string{"jev", "export", "--session", ids[1], "--out", file}, app, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 || strings.Contains(string(b), ids[0]) || out.Len() != 0 {
		t.Errorf("--session --out wrote %d lines:\n%s\nstdout %q", n, b, out)
	}
	if code := Main(ctx, []string{"jev", "export", "--session", "ses_nope"}, app, Options{}); code != 2 {
		t.Errorf("unknown session: exit %d, want 2", code)
	}
}

// TestJevPinsShowLocked: requirements pins of jev.enabled and
// jev.permissions are what forbids Jev or act on a fleet: inspect shows
// them pinned, from the requirements, over a user's act.
func TestJevPinsShowLocked(t *testing.T) {
	m := layerstest.New(t)
	m.UserConfig(`{"jev": {"enabled": true, "permissions": "act"}}`)
	m.Anchor()
	m.Requirements(1, map[string]any{"pins": map[string]any{"jev.permissions": "shadow", "jev.enabled": false}})
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"inspect", "--json"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var doc struct {
		Keys map[string]struct {
			Value  any    `json:"value"`
			Layer  string `json:"layer"`
			Pinned bool   `json:"pinned"`
		} `json:"keys"`
		Locks struct {
			Pinned []string `json:"pinned"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for k, want := range map[string]any{"jev.permissions": "shadow", "jev.enabled": false} {
		e, ok := doc.Keys[k]
		if !ok || e.Value != want || !e.Pinned || e.Layer != "requirements" {
			t.Errorf("%s = %+v, want %v pinned by the requirements\n%s", k, e, want, out)
		}
	}
	if got := strings.Join(doc.Locks.Pinned, ","); got != "jev.enabled,jev.permissions" {
		t.Errorf("locks.pinned = %s", got)
	}
}

// TestJevEvalBuildsLikeRun: jev eval builds its model through the
// configuration as run does — no model is a usage error, a model the
// requirements do not allow is refused (exit 4) before any request, and a
// --set that cannot be read is a usage error.
func TestJevEvalBuildsLikeRun(t *testing.T) {
	m := layerstest.New(t)
	m.Anchor()
	m.Requirements(1, map[string]any{"allowed_models": []any{"anthropic/claude-*"}})
	m.Env["OPENAI_API_KEY"] = "k"
	app, _, errb := machineApp(t, m)
	for _, c := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"jev", "eval"}, 2, "no model"},
		{[]string{"jev", "eval", "--model", "openai/gpt-5"}, 4, "allowed_models"},
		{[]string{"jev", "eval", "--set", "nope.json", "--model", "anthropic/claude-x"}, 2, "nope.json"},
	} {
		errb.Reset()
		if code := Main(context.Background(), c.args, app, Options{}); code != c.code || !strings.Contains(errb.String(), c.say) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", c.args, code, c.code, errb, c.say)
		}
	}
}
