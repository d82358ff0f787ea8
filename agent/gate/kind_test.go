package gate_test

import (
	"testing"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/tools"
)

// TestKindsAgreeWithKeys: each built-in tool's declared Kind is the one its
// permission key implies, so a call is guarded alike whether its caller
// asked the tool (the turn loop) or named it (permission check, doctor).
func TestKindsAgreeWithKeys(t *testing.T) {
	for _, tool := range tools.Builtins() {
		name := tool.Def().Name
		if got, want := tool.Kind(), gate.KeyKind(name); got != want {
			t.Errorf("%s declares kind %d; its permission key implies %d", name, got, want)
		}
		if tool.Kind() == gate.KindUnset {
			t.Errorf("%s declares no kind", name)
		}
	}
}
