package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestUndoCommand: a headless run's write is a checkpoint; `oceancode undo
// --list` shows it, `undo` removes the file and records the note the model
// reads, a user's change is not overwritten (exit 1 naming it), and
// `undo --redo` puts the file back.
func TestUndoCommand(t *testing.T) {
	model := providertest.New(t, providertest.Call("write", map[string]string{"path": "f.txt", "content": "new\n"}), providertest.Text("done"))
	m := layerstest.New(t)
	m.ProjectConfig(`{"model": "mock/x", "provider": {"mock": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}}}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	cli := func(want int, args ...string) string {
		t.Helper()
		app, out, errb := machineApp(t, m)
		if code := Main(context.Background(), args, app, Options{}); code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errb)
		}
		return out.String() + errb.String()
	}
	cli(0, "run", "--auto", "make f")
	f := filepath.Join(m.Project, "f.txt")
	if out := cli(0, "undo", "--list"); !strings.Contains(out, "make f") || !strings.Contains(out, "1 ") {
		t.Fatalf("undo --list:\n%s", out)
	}
	if out := cli(0, "undo"); !strings.Contains(out, "removed f.txt") {
		t.Fatalf("undo:\n%s", out)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Fatalf("f.txt after undo: %v", err)
	}
	rec := onlySession(t, m)
	app, _, _ := machineApp(t, m)
	st, err := session.Open(context.Background(), sessionsDB(app))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Messages(context.Background(), rec.ID)
	st.Close()
	if err != nil || !strings.Contains(msgs[len(msgs)-1].TextOf(), "The user undid the file changes of checkpoint 1") {
		t.Fatalf("the session does not carry the note: %v", err)
	}
	if err := os.WriteFile(f, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := cli(1, "undo", "--redo"); !strings.Contains(out, "f.txt") || !strings.Contains(out, "force") {
		t.Fatalf("redo over a user's file:\n%s", out)
	}
	os.Remove(f)
	cli(0, "undo", "--redo", "--session", rec.ID)
	if b, err := os.ReadFile(f); err != nil || string(b) != "new\n" {
		t.Fatalf("f.txt after redo: %q %v", b, err)
	}
	if out := cli(2, "undo", "--session", "nope"); !strings.Contains(out, "no such session") {
		t.Fatalf("unknown session:\n%s", out)
	}
}
