package policycheck

import (
	"strings"
	"testing"
)

// TestProjectConfig: project_config "signed" needs repo_signers.
func TestProjectConfig(t *testing.T) {
	t.Parallel()
	good := "ed25519:" + strings.Repeat("A", 43) + "="
	for _, c := range []struct{ payload, want string }{
		{`{"schema_version": 1, "project_config": "signed"}`, `project_config "signed" needs repo_signers`},
		{`{"schema_version": 1, "project_config": "signed", "repo_signers": ["` + good + `"]}`, ""},
		{`{"schema_version": 1, "project_config": "tighten-only"}`, ""},
	} {
		var got []string
		for _, v := range Payload("p.json", parse(t, c.payload)) {
			got = append(got, v.Message)
		}
		joined := strings.Join(got, "\n")
		if (c.want == "") != (joined == "") || !strings.Contains(joined, c.want) {
			t.Errorf("%s: got %q, want %q", c.payload, joined, c.want)
		}
	}
}
