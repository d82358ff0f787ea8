package runner_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestUndoRedoEditAndBash: a turn of the scripted model edits a file with
// edit and changes two with bash; the checkpoint event names them, undo
// restores all three and tells the model, a user's later change is never
// overwritten, and redo puts the turn's changes back. Real git, real tools.
func TestUndoRedoEditAndBash(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		providertest.Call("read", map[string]string{"path": "a.go"}),
		providertest.Call("edit", map[string]string{"path": "a.go", "old_string": "package a", "new_string": "package b"}),
		bash("echo changed > b.txt && echo new > c.txt"),
		providertest.Text("done"),
		providertest.Text("ok"))
	for name, body := range map[string]string{"a.go": "package a\n", "b.txt": "b\n"} {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init")
	git.Dir, git.Env = f.dir, append(os.Environ(), "HOME="+f.dir)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	o := f.options()
	o.Interactive, o.Turn.Auto = false, true
	o.Checkpoints = &checkpoint.Options{StateDir: t.TempDir()}
	s := f.start(o)
	u, _ := s.Subscribe(0)
	if _, err := s.Run(context.Background(), "change things"); err != nil {
		t.Fatal(err)
	}
	var ck *engineapi.Checkpoint
	for _, ev := range until(t, u, agent.EventDone) {
		if ev.Event.Type == agent.EventCheckpoint {
			ck = ev.Event.Checkpoint
		}
	}
	want := []engineapi.CheckpointFile{{Path: "a.go", Status: "modified"}, {Path: "b.txt", Status: "modified"}, {Path: "c.txt", Status: "added"}}
	if ck == nil || ck.N != 1 || !cmp.Equal(ck.Files, want) {
		t.Fatalf("checkpoint event = %+v", ck)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(f.dir, name))
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}
	// The user changes b.txt after the turn: undo refuses and writes nothing.
	if err := os.WriteFile(filepath.Join(f.dir, "b.txt"), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Undo(context.Background(), engineapi.UndoRequest{})
	var ce *engineapi.ConflictError
	if !errors.As(err, &ce) || !cmp.Equal(ce.Files, []string{"b.txt"}) || read("a.go") != "package b\n" {
		t.Fatalf("undo over a user's change = %v", err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "b.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Undo(context.Background(), engineapi.UndoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{read("a.go"), read("b.txt"), read("c.txt")}; !cmp.Equal(got, []string{"package a\n", "b\n", "<absent>"}) {
		t.Fatalf("after undo: %q (%+v)", got, res)
	}
	list, err := s.Checkpoints()
	if err != nil || len(list) != 1 || !list[0].Undone || list[0].Prompt != "change things" {
		t.Fatalf("checkpoints = %+v, %v", list, err)
	}
	if _, err := s.Redo(context.Background(), engineapi.UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := []string{read("a.go"), read("b.txt"), read("c.txt")}; !cmp.Equal(got, []string{"package b\n", "changed\n", "new\n"}) {
		t.Fatalf("after redo: %q", got)
	}
	// The model reads the undo and the redo in its next request.
	if _, err := s.Run(context.Background(), "next"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages {
		texts = append(texts, m.TextOf())
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "The user undid the file changes of checkpoint 1") || !strings.Contains(all, "The user redid") {
		t.Fatalf("the model was not told:\n%s", all)
	}
}

// TestReadOnlyTurnTakesNoCheckpoint: a turn that only reads opens no
// shadow repository.
func TestReadOnlyTurnTakesNoCheckpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Call("list", map[string]string{"path": "."}), providertest.Text("done"))
	o := f.options()
	o.Interactive, o.Turn.Auto = false, true
	state := t.TempDir()
	o.Checkpoints = &checkpoint.Options{StateDir: state}
	s := f.start(o)
	if _, err := s.Run(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(state, "checkpoints")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only turn made checkpoints: %v", err)
	}
	if _, err := s.Undo(context.Background(), engineapi.UndoRequest{}); !errors.Is(err, engineapi.ErrNothingToUndo) {
		t.Fatalf("undo = %v", err)
	}
}
