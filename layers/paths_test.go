package layers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestPathsOnlyFromTheGivenEnvironment: the user's config and state dirs
// come from the environment Options.Getenv gives and never from the
// process's own: with no home in it there is no user layer and no state,
// even though the process's HOME has both.
func TestPathsOnlyFromTheGivenEnvironment(t *testing.T) {
	processHome := t.TempDir()
	t.Setenv("HOME", processHome)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	cfg := filepath.Join(processHome, ".config", "oceancode", "oceancode.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"model": "process/home"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := layers.StateDir(func(string) string { return "" }); d != "" {
		t.Errorf("StateDir of an empty environment = %q, want \"\"", d)
	}
	if d := layers.StateDir(func(k string) string { return map[string]string{"HOME": "/h", "XDG_STATE_HOME": "rel"}[k] }); d != "/h/.local/state/oceancode" {
		t.Errorf("StateDir with a relative XDG_STATE_HOME = %q, want the home's (XDG: relative paths are ignored)", d)
	}

	m := layerstest.New(t)
	o := m.Options()
	o.Getenv = func(string) string { return "" }
	r := layers.Resolve(o)
	for _, l := range r.Layers {
		if strings.HasPrefix(l.Source, processHome) {
			t.Errorf("layer %s read from the process's HOME: %s", l.Layer, l.Source)
		}
	}
	if e := r.Entries["model"]; e != nil && e.Value == "process/home" {
		t.Errorf("the process's user config was applied: %+v", e)
	}
}
