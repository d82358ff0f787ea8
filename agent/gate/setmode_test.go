package gate

import (
	"sync"
	"testing"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/permission"
)

// TestSetModeLive: a live switch takes effect for the next Check, honours
// the locks, and is safe while other goroutines decide calls.
func TestSetModeLive(t *testing.T) {
	root := t.TempDir()
	g, err := New(Config{Boundary: fsguard.Boundary{ProjectRoot: root}, Permission: permission.Config{
		Rules: []permission.Rule{{Key: "edit", Pattern: "*", Action: permission.Ask}},
		Locks: permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by requirements r.json (serial 1)"}}}})
	if err != nil {
		t.Fatal(err)
	}
	write := Call{Tool: "write", Input: "a.txt", Cwd: root}
	if d := g.Check(write); d.Action != permission.Ask {
		t.Fatalf("write in default mode: %v", d.Action)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				g.Check(write)
			}
		}()
	}
	ch := g.SetMode(permission.AcceptEdits)
	wg.Wait()
	if ch.Downgraded() || g.Engine().Mode() != permission.AcceptEdits {
		t.Errorf("acceptEdits: %+v, mode %s", ch, g.Engine().Mode())
	}
	if d := g.Check(write); d.Action != permission.Allow {
		t.Errorf("write in acceptEdits: %v", d.Action)
	}
	ch = g.SetMode(permission.BypassPermissions)
	if !ch.Downgraded() || ch.Effective != permission.Default || g.Engine().Mode() != permission.Default {
		t.Errorf("bypass under a lock: %+v, mode %s", ch, g.Engine().Mode())
	}
	if d := g.Check(write); d.Action != permission.Ask {
		t.Errorf("write after the downgrade: %v", d.Action)
	}
}
