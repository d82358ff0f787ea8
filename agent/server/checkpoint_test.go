package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestUndoRoutes: a turn's new file is listed, undone over
// POST …/undo (the checkpoint event says so), a second undo answers 409
// nothing_to_undo, redo puts it back; every answer follows the OpenAPI
// document. A session without checkpoints answers 501.
func TestUndoRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Call("write", map[string]string{"path": "f.txt", "content": "new\n"}), providertest.Text("done")},
		func(h *harness) { h.checkpoints = true })
	// The session store is in the project here: not the project's files.
	if err := os.WriteFile(filepath.Join(h.dir, ".gitignore"), []byte("sessions.db*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := h.create(map[string]any{"permission_mode": "bypassPermissions"})
	ch, _ := h.stream(id, nil)
	h.send(id, "make f")
	evs := h.until(ch, "done")
	found := false
	for _, e := range evs {
		found = found || e.Type() == "checkpoint"
	}
	var list map[string]any
	if code := h.do("GET", "/api/session/"+id+"/checkpoints", nil, &list); code != 200 {
		t.Fatalf("checkpoints: %d %v", code, list)
	}
	h.schema.check(t, "Checkpoints", list)
	if n := len(list["checkpoints"].([]any)); n != 1 || !found {
		t.Fatalf("checkpoints = %v (checkpoint event seen: %v)", list, found)
	}
	var res map[string]any
	if code := h.do("POST", "/api/session/"+id+"/undo", nil, &res); code != 200 {
		t.Fatalf("undo: %d %v", code, res)
	}
	h.schema.check(t, "CheckpointResult", res)
	if _, err := os.Stat(filepath.Join(h.dir, "f.txt")); !os.IsNotExist(err) {
		t.Fatalf("f.txt after undo: %v", err)
	}
	h.until(ch, "checkpoint")
	var e map[string]any
	if code := h.do("POST", "/api/session/"+id+"/undo", map[string]any{}, &e); code != 409 || e["code"] != "nothing_to_undo" {
		t.Fatalf("second undo: %d %v", code, e)
	}
	h.schema.check(t, "Error", e)
	if code := h.do("POST", "/api/session/"+id+"/redo", nil, &res); code != 200 {
		t.Fatalf("redo: %d %v", code, res)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "f.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("f.txt after redo: %q %v", b, err)
	}
}

func TestUndoWithoutCheckpoints(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")})
	id := h.create(nil)
	var e map[string]any
	if code := h.do("POST", "/api/session/"+id+"/undo", nil, &e); code != 501 || e["code"] != "checkpoints_off" {
		t.Fatalf("undo: %d %v", code, e)
	}
	h.schema.check(t, "Error", e)
}
