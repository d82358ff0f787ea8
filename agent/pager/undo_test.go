package pager

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestUndoRedoCommands: a turn's bash change shows as a checkpoint line,
// /checkpoints lists it, /undo restores the file, a second /undo says
// there is nothing left, and /redo puts the change back.
func TestUndoRedoCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Call("bash", map[string]string{"command": "echo new > f.txt"}), providertest.Text("done"))
	f.mode = permission.BypassPermissions
	f.checkpoints = t.TempDir()
	_, eng := f.start("")
	h := newHarness(t, eng, 120, 30, true)
	h.until("the state", func() bool { return h.m.state.Model != "" })
	if err := eng.Send(h.m.ctx, "make f"); err != nil {
		t.Fatal(err)
	}
	h.until("the checkpoint line", h.printedHas("checkpoint 1: f.txt (/undo)"))
	h.until("the turn's end", func() bool { return !h.m.working })
	h.send(commandMsg{"checkpoints", nil})
	h.until("the undo list", h.printedHas("1 files  make f"))
	h.send(commandMsg{"undo", nil})
	h.until("the undo", h.printedHas("undo of checkpoint [1]: f.txt"))
	if _, err := os.Stat(filepath.Join(f.dir, "f.txt")); !os.IsNotExist(err) {
		t.Fatalf("f.txt after /undo: %v", err)
	}
	h.send(commandMsg{"undo", nil})
	h.until("nothing to undo", h.printedHas("/undo: checkpoint: nothing to undo"))
	h.send(commandMsg{"redo", []string{"--force"}})
	h.until("the redo", h.printedHas("redo of checkpoint [1]: f.txt"))
	if b, err := os.ReadFile(filepath.Join(f.dir, "f.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("f.txt after /redo: %q %v", b, err)
	}
	h.send(commandMsg{"undo", []string{"x"}})
	h.until("the usage error", h.printedHas(`/undo: unknown argument "x"`))
}
