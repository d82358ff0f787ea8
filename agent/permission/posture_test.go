package permission

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/provenance"
)

// TestDefaultDenyPosture: under the default-deny shell posture no layer
// below the requirements lets a bash command run without asking, while
// deny rules and the dangerous floor still deny and other tools are
// untouched.
func TestDefaultDenyPosture(t *testing.T) {
	req := provenance.Origin{Layer: provenance.Requirements, Source: "/etc/oceancode/requirements.json"}
	user := provenance.Origin{Layer: provenance.User, Source: "user.json", Line: 3}
	managed := provenance.Origin{Layer: provenance.Managed, Source: "managed.json", Line: 2}
	allowRule := &Rule{Key: "bash", Pattern: "make test:*", Action: Allow, Origin: user, Source: "shell allow"}
	sv := func(verdict string, segs ...string) *ShellVerdict {
		return &ShellVerdict{Verdict: verdict, Segments: segs}
	}
	for _, c := range []struct {
		name  string
		cfg   Config
		call  Call
		want  Action
		byReq bool // the posture decides
	}{
		{name: "safe-list command", call: Call{Tool: "bash", Shell: sv(VerdictSafe, "ls")}, want: Ask, byReq: true},
		{name: "safe segments of a chain", call: Call{Tool: "bash", Shell: sv(VerdictSafe, "git status", "git log")}, want: Ask, byReq: true},
		{name: "shell.allow rule", call: Call{Tool: "bash", Shell: &ShellVerdict{Verdict: VerdictAllow, Segments: []string{"make test"}, Rules: []*Rule{allowRule}}}, want: Ask, byReq: true},
		{name: "user allow rule", cfg: Config{Rules: []Rule{{Key: "bash", Pattern: "make test", Action: Allow, Origin: user}}}, call: Call{Tool: "bash", Shell: sv(VerdictAsk, "make test")}, want: Ask, byReq: true},
		{name: "managed allow-all", cfg: Config{Rules: []Rule{{Key: "bash", Pattern: "*", Action: Allow, Origin: managed}}}, call: Call{Tool: "bash", Shell: sv(VerdictAsk, "make test")}, want: Ask, byReq: true},
		{name: "bypassPermissions", cfg: Config{Mode: BypassPermissions}, call: Call{Tool: "bash", Shell: sv(VerdictAsk, "make test")}, want: Ask, byReq: true},
		{name: "a user deny still denies", cfg: Config{Rules: []Rule{{Key: "bash", Pattern: "curl:*", Action: Deny, Origin: user}}}, call: Call{Tool: "bash", Shell: sv(VerdictAsk, "curl x")}, want: Deny},
		{name: "shell.deny still denies", call: Call{Tool: "bash", Pattern: "curl x", Shell: sv(VerdictDeny, "curl x")}, want: Deny},
		{name: "the floor still denies", call: Call{Tool: "bash", Pattern: "rm -rf /", Shell: &ShellVerdict{Verdict: VerdictFloor, Reason: "deletes the filesystem", Segments: []string{"rm -rf /"}}}, want: Deny},
		{name: "dontAsk turns it into deny", cfg: Config{Mode: DontAsk}, call: Call{Tool: "bash", Shell: sv(VerdictSafe, "ls")}, want: Deny},
		{name: "read is not bash", call: Call{Tool: "read", Pattern: "README.md"}, want: Allow},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Locks.ShellPosture, c.cfg.Locks.PostureOrigin = PostureDefaultDeny, req
			e := newEngine(t, c.cfg)
			d := e.Evaluate(c.call)
			if d.Action != c.want {
				t.Fatalf("decision %s by %v (%s), want %s", d.Action, d.Rule, d.Reason, c.want)
			}
			if c.byReq && (d.Origin != req || d.Rule.Source != PostureSource || !d.Posture() || !strings.Contains(d.Reason, "default-deny shell posture")) {
				t.Errorf("decided by %v from %v, want the posture from %v", d.Rule, d.Origin, req)
			}
			if d.ResidualAsk() {
				t.Error("a posture ask is residual: the Jev advisor could approve it")
			}
			// An "always" approval does not open it.
			if d.Action == Ask {
				ap := &Approvals{}
				ap.Approve(Call{Tool: "bash", Pattern: c.call.Shell.Segments[0]}, Always)
				c.call.Approvals = ap
				if d := e.Evaluate(c.call); d.Action != Ask || d.Approved {
					t.Errorf("after an always approval: %s (approved %v), want ask", d.Action, d.Approved)
				}
			}
		})
	}
	// Without the posture the safe list auto-approves (the contrast).
	if d := newEngine(t, Config{}).Evaluate(Call{Tool: "bash", Shell: sv(VerdictSafe, "ls")}); d.Action != Allow {
		t.Errorf("no posture: ls %s, want allow", d.Action)
	}
	// A live switch to bypassPermissions keeps it.
	e := newEngine(t, Config{Locks: Locks{ShellPosture: PostureDefaultDeny, PostureOrigin: req}})
	e2, _ := e.WithMode(BypassPermissions)
	if d := e2.Evaluate(Call{Tool: "bash", Shell: sv(VerdictSafe, "ls")}); d.Action != Ask {
		t.Errorf("after a live switch to bypassPermissions: %s, want ask", d.Action)
	}
	if _, err := New(Config{Locks: Locks{ShellPosture: "paranoid", PostureOrigin: req}}); err == nil {
		t.Error("an unknown posture compiled: it must fail closed")
	}
}
