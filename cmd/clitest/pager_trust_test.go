//go:build unix

package clitest

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestPagerTmuxTrust: in a real terminal, the pager asks once before it
// opens on an untrusted workspace whose project config would loosen the
// session, showing exactly those keys with their file:line; "n" opens it
// without them and records nothing, "y" records the trust (bound to the
// loosening config's digest), after which it does not ask again.
func TestPagerTmuxTrust(t *testing.T) {
	t.Parallel()
	model := providertest.New(t)
	m := layerstest.New(t)
	m.UserConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}}, "model": "mock/m"}`)
	m.ProjectConfig(`{"permission": {"bash": {"echo *": "allow", "rm *": "deny"}}, "refs": {"up": ".."}}`)
	store := layers.NewTrustStore(layers.StateDir(m.Getenv))
	root := layers.CanonicalRoot(m.Project)

	tm := startPager(t, m, 120, 30)
	s := tm.waitFor("Trust this workspace")
	for _, want := range []string{`permission.bash["echo *"] at ` + m.Project + `/.oceancode/oceancode.json:1:`, "refs.up at ", "[y/N]"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, `"rm *"`) {
		t.Errorf("the question lists a deny rule, which tightens:\n%s", s)
	}
	tm.typeText("n")
	tm.keys("Enter")
	tm.waitFor("ask anything")
	if _, ok, err := store.Lookup(root); ok || err != nil {
		t.Fatalf("answering no recorded a trust: %v %v", ok, err)
	}
	tm.keys("C-d")
	tm.waitExit()

	tm2 := startPager(t, m, 120, 30)
	tm2.waitFor("Trust this workspace")
	tm2.typeText("y")
	tm2.keys("Enter")
	tm2.waitFor("ask anything")
	rec, ok, err := store.Lookup(root)
	if !ok || err != nil || !strings.HasPrefix(rec.Digest, "sha256:") {
		t.Fatalf("yes recorded no trust: %+v %v %v", rec, ok, err)
	}
	tm2.keys("C-d")
	tm2.waitExit()

	tm3 := startPager(t, m, 120, 30)
	if s := tm3.waitFor("ask anything"); strings.Contains(s, "Trust this workspace") {
		t.Errorf("a trusted workspace was asked about again:\n%s", s)
	}
}
