package permission

import (
	"testing"

	"github.com/oceancode/oceancode/provenance"
)

// TestRequirementsAskSurvivesApproval: when a config rule and a
// requirements rule both ask, the requirements rule decides, so the answer
// names the rule the user cannot remove and an "always" approval cannot
// turn it into allow.
func TestRequirementsAskSurvivesApproval(t *testing.T) {
	req := provenance.Origin{Layer: provenance.Requirements, Source: "/etc/oceancode/requirements.json"}
	user := provenance.Origin{Layer: provenance.User, Source: "user.json", Line: 2}
	e := newEngine(t, Config{
		Rules: []Rule{{Key: "bash", Pattern: "*", Action: Ask, Origin: user}},
		Locks: Locks{Ask: []Rule{{Key: "bash", Pattern: "git push:*", Action: Ask, Origin: req}}},
	})
	call := Call{Tool: "bash", Pattern: "git push origin main", Shell: &ShellVerdict{Verdict: "ask", Segments: []string{"git push origin main"}}}
	d := e.Evaluate(call)
	if d.Action != Ask || d.Origin.Layer != provenance.Requirements {
		t.Fatalf("decision %s from %v, want ask from requirements", d.Action, d.Origin)
	}
	ap := &Approvals{}
	ap.Approve(call, Always)
	call.Approvals = ap
	if d := e.Evaluate(call); d.Action != Ask || d.Approved {
		t.Fatalf("after an always approval: %s (approved %v), want ask", d.Action, d.Approved)
	}
	// An ordinary config ask is still approvable.
	other := Call{Tool: "bash", Pattern: "npm publish", Shell: &ShellVerdict{Verdict: "ask", Segments: []string{"npm publish"}}}
	ap.Approve(other, Always)
	other.Approvals = ap
	if d := e.Evaluate(other); d.Action != Allow || !d.Approved {
		t.Fatalf("config ask after always: %s (approved %v), want allow", d.Action, d.Approved)
	}
}
