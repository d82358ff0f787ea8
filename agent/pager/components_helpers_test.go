package pager

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// The -update flag may be registered by another test file of the package;
// register it only when nobody did (package variables initialise first).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldenFrame compares a rendered frame with testdata/components/name.golden
// (ANSI kept) and name.txt (ansi.Strip, for review); -update rewrites both.
func goldenFrame(t *testing.T, name, frame string) {
	t.Helper()
	for _, g := range []struct{ ext, body string }{{".golden", frame}, {".txt", ansi.Strip(frame)}} {
		path := filepath.Join("testdata", "components", name+g.ext)
		if updating() {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(g.body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read golden %s: %v (run go test -update)", path, err)
		}
		if d := cmp.Diff(string(want), g.body+"\n"); d != "" {
			t.Errorf("%s differs (-want +got):\n%s", path, d)
		}
	}
}

// press is the key press named like KeyPressMsg.String: "enter", "esc",
// "tab", "shift+tab", "up", "alt+enter", "ctrl+j", or one printable rune.
func press(k string) tea.KeyPressMsg {
	named := map[string]tea.KeyPressMsg{
		"enter":     {Code: tea.KeyEnter},
		"alt+enter": {Code: tea.KeyEnter, Mod: tea.ModAlt},
		"ctrl+j":    {Code: 'j', Mod: tea.ModCtrl},
		"esc":       {Code: tea.KeyEscape},
		"tab":       {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"left":      {Code: tea.KeyLeft},
		"right":     {Code: tea.KeyRight},
		"pgup":      {Code: tea.KeyPgUp},
		"pgdown":    {Code: tea.KeyPgDown},
		"backspace": {Code: tea.KeyBackspace},
		"home":      {Code: tea.KeyHome},
	}
	if m, ok := named[k]; ok {
		return m
	}
	r := []rune(k)
	if len(r) != 1 {
		panic("press: unknown key " + k)
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// typed is the key presses that type s.
func typed(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}
