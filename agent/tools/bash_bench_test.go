package tools

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/oceancode/oceancode/agent/sandbox"
)

// BenchmarkBashTrue is the bash tool's per-command cost in a session
// (`true`, end to end: guard-free Run, child environment, output capture),
// with the sandbox off (the supervisor) and on (workspace-write, network
// off). OCEANCODE_HELPER=/path/to/oceancode-sandbox measures with the lean
// production helper (make bench sets it); otherwise the test binary is the
// helper. OCEANCODE_EXEC_HELPER=/path/to/oceancode-sandbox-exec names the C
// exec helper (the sandbox's helper and the sandbox-off supervisor, as on
// an installed machine; without it, the one TestMain built), and
// OCEANCODE_EXEC_HELPER=none measures the Go helper alone. No timing is
// asserted.
func BenchmarkBashTrue(b *testing.B) {
	if h := os.Getenv("OCEANCODE_HELPER"); h != "" {
		old := sandbox.HelperPath
		sandbox.HelperPath = h
		defer func() { sandbox.HelperPath = old }()
	}
	if h := os.Getenv("OCEANCODE_EXEC_HELPER"); h != "" {
		old := sandbox.ExecHelperPath
		sandbox.ExecHelperPath = h
		if h == "none" {
			sandbox.ExecHelperPath = ""
		}
		defer func() { sandbox.ExecHelperPath = old }()
	}
	input := json.RawMessage(`{"command":"true"}`)
	for _, mode := range []struct {
		name   string
		policy sandbox.Policy
	}{
		{"sandbox-off", sandbox.Policy{}},
		{"sandbox-on", sandbox.Policy{Enabled: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			env := testEnv(b)
			env.Sandbox = mode.policy
			ctx := context.Background()
			for b.Loop() {
				if r := (BashTool{}).Run(ctx, env, input); r.IsError {
					b.Fatal(r.Content)
				}
			}
		})
	}
}
