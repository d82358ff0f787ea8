package layers_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
)

// TestEmptyObjectSetsNothing: an empty object in a higher layer adds no
// key and removes none a lower layer set (layers add keys; to change one,
// set it).
func TestEmptyObjectSetsNothing(t *testing.T) {
	t.Parallel()
	m := layerstest.New(t)
	m.ProjectConfig(`{"sandbox": {"mode": "read-only", "deny": [".git"]}, "mcp": {"servers": {"gh": {"command": "/bin/gh"}}}}`)
	m.TrustProject()
	m.UserConfig(`{"sandbox": {}, "mcp": {"servers": {}}, "permission": {}}`)
	r := m.Resolve()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sandbox.mode", "sandbox.deny", "mcp.servers.gh.command"} {
		e := r.Entries[k]
		if e == nil || e.Origin.Layer != provenance.Project {
			t.Fatalf("%s = %+v, want the project's value", k, e)
		}
		segs, _ := provenance.SplitKey(k)
		if got := r.K.Get(strings.Join(segs, layers.Delim)); !reflect.DeepEqual(got, e.Value) {
			t.Errorf("%s: koanf has %#v, provenance %#v", k, got, e.Value)
		}
	}
	for _, k := range []string{"sandbox", "mcp.servers", "permission"} {
		if _, ok := r.Entries[k]; ok {
			t.Errorf("an empty object became key %s", k)
		}
	}
}
