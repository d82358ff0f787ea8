package pager

import (
	"strings"
	"testing"
)

// TestInstructionsCommand: /instructions lists the files of the inspect
// document, what was cut and refused, with a file name's escape sequences
// dropped; without files it says how to start one.
func TestInstructionsCommand(t *testing.T) {
	f := newFixture(t)
	doc := `{"version": 1, "keys": {}, "instructions": {"files": [
		{"name": "AGENTS.md", "layer": "project", "bytes": 30, "size": 30},
		{"name": "docs/style.md", "layer": "project", "imported_by": "AGENTS.md", "bytes": 17, "size": 17},
		{"name": "a/\u001b[2Jb/AGENTS.md", "layer": "subdir", "bytes": 100, "size": 900, "cut": "800 of 900 bytes left out (the per-file cap of 100 bytes)"}],
		"notices": [{"kind": "refused", "file": "a/b/loop2.md", "text": "import @loop1.md refused: a cycle (a/b/loop1.md → a/b/loop2.md → a/b/loop1.md)"}],
		"bytes": 147, "max_file_bytes": 100, "max_total_bytes": 65536}}`
	f.hooks.Inspect = func() ([]byte, error) { return []byte(doc), nil }
	_, eng := f.start("")
	h := newHarness(t, eng, 160, 30, true)
	h.send(commandMsg{"instructions", nil})
	h.settle()
	out := h.printed()
	for _, w := range []string{
		"instructions: 3 files, 147 of 65536 bytes",
		"project AGENTS.md  30 bytes",
		"project docs/style.md (imported by AGENTS.md)  17 bytes",
		"subdir  a/b/AGENTS.md  100 bytes  cut: 800 of 900 bytes left out (the per-file cap of 100 bytes)",
		"refused a/b/loop2.md: import @loop1.md refused: a cycle",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("scrollback lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Errorf("an escape sequence from a file name reached the scrollback")
	}

	f2 := newFixture(t)
	f2.hooks.Inspect = func() ([]byte, error) { return []byte(`{"version": 1, "keys": {}}`), nil }
	_, eng2 := f2.start("")
	h2 := newHarness(t, eng2, 120, 30, true)
	h2.send(commandMsg{"instructions", nil})
	h2.settle()
	if out := h2.printed(); !strings.Contains(out, "no AGENTS.md or CLAUDE.md here") {
		t.Errorf("scrollback:\n%s", out)
	}
}
