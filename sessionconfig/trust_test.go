package sessionconfig

import (
	"testing"

	"github.com/oceancode/oceancode/layers"
)

// TestRegistryKeysClassified: every key the runtime reads says whether it
// tightens, loosens or is neutral when a project sets it (layers'
// classTable), so a key added to the registry cannot reach a session from
// an untrusted repository unclassified.
func TestRegistryKeysClassified(t *testing.T) {
	for _, k := range Registry() {
		if !layers.Classified(k.Segments()) {
			t.Errorf("registered key %s has no row in layers' classTable (layers/classify.go)", k.Path())
		}
	}
}
