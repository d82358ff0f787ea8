package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/provenance"
)

// Under the default-deny shell posture a bash call is put to the user
// without an "always" choice (it could not stick), and headless --auto
// refuses it instead of approving it. The call never runs here.
func TestPostureAsksEveryTimeAndAutoRefuses(t *testing.T) {
	posture := permission.Config{Locks: permission.Locks{ShellPosture: permission.PostureDefaultDeny,
		PostureOrigin: provenance.Origin{Layer: provenance.Requirements, Source: "requirements.json"}}}
	ls := providertest.Call("bash", map[string]string{"command": "ls"})

	c, _, _ := setup(t, posture, ls, providertest.Text("ok"))
	c.Tools = append(c.Tools, tools.BashTool{})
	asked := 0
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		asked++
		if a.Rememberable || !a.Decision.Posture() {
			t.Errorf("ask = rememberable %v, posture %v", a.Rememberable, a.Decision.Posture())
		}
		return agent.Reply{Answer: agent.Deny}, nil
	}
	if res, err := agent.Run(context.Background(), c, nil, "go"); err != nil || res.Denied != 1 || asked != 1 {
		t.Errorf("interactive: denied %d, asked %d, %v", res.Denied, asked, err)
	}

	c, srv, _ := setup(t, posture, ls, providertest.Text("ok"))
	c.Tools = append(c.Tools, tools.BashTool{})
	c.Auto = true
	res, err := agent.Run(context.Background(), c, nil, "go")
	if err != nil || res.Denied != 1 {
		t.Fatalf("--auto: denied %d, %v", res.Denied, err)
	}
	if rs := results(t, srv); len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content, "cannot ask for approval") || !strings.Contains(rs[0].Content, "default-deny shell posture") {
		t.Errorf("--auto result: %+v", rs)
	}
}
