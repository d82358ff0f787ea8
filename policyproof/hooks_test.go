package policyproof_test

import (
	"testing"

	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/policyproof"
)

// allow_managed_hooks_only holds for a hook set in the project, user and
// session layers; on a machine whose loader does not drop them it is
// Broken.
func TestManagedHooks(t *testing.T) {
	m := locked(t, map[string]any{"allow_managed_hooks_only": true})
	rs := only(prove(t, m, m), policyproof.ManagedHooks)
	if len(rs) != 3 {
		t.Fatalf("checks: %+v", rs)
	}
	for _, path := range []string{"project config", "user config", "session settings"} {
		r, ok := byPath(rs, path)
		if !ok || r.Outcome != policyproof.Held || r.Lock.String() != "only managed hooks run" {
			t.Errorf("%s: %+v", path, r)
		}
	}
	plain := layerstest.New(t) // no requirements: the hooks would run
	rs = only(prove(t, m, plain), policyproof.ManagedHooks)
	for _, r := range rs {
		if r.Outcome != policyproof.Broken || r.Detail != "a hook set here would run" {
			t.Errorf("without the lock: %+v", r)
		}
	}
}
