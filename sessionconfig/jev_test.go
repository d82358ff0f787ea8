package sessionconfig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/sessionconfig"
)

// TestJevFleetControl: the advisor is built from jev.* with the session's
// provider and model; no project config enables act (downgraded to shadow,
// with a mode_change notice); requirements pins forbid act or Jev
// altogether, and every downgrade is announced.
func TestJevFleetControl(t *testing.T) {
	const model = `"model": "anthropic/claude-test"`
	for _, c := range []struct {
		name, user, project string
		pins                map[string]any
		want                jev.Mode // "" = no advisor
		deadline            int      // ms, 0 = the default
		notice              []string // in the jev.* mode_change notice, "" = none
	}{
		{name: "off by default", user: `{` + model + `}`},
		{name: "enabled: shadow", user: `{` + model + `, "jev": {"enabled": true}}`, want: jev.Shadow},
		{name: "user act", user: `{` + model + `, "jev": {"enabled": true, "permissions": "act", "deadline_ms": 800}}`, want: jev.Act, deadline: 800},
		{name: "project act is shadow", user: `{` + model + `}`, project: `{"jev": {"enabled": true, "permissions": "act"}}`, want: jev.Shadow,
			notice: []string{"jev.permissions", "act", "shadow", "a project's configuration cannot enable act mode"}},
		{name: "user act beats nothing from the project", user: `{` + model + `, "jev": {"permissions": "act"}}`, project: `{"jev": {"enabled": true}}`, want: jev.Act},
		{name: "pin forbids act", user: `{` + model + `, "jev": {"enabled": true, "permissions": "act"}}`, pins: map[string]any{"jev.permissions": "shadow"}, want: jev.Shadow,
			notice: []string{"jev.permissions", "act", "shadow", "pin"}},
		{name: "pin forbids jev", user: `{` + model + `, "jev": {"enabled": true, "permissions": "act"}}`, pins: map[string]any{"jev.enabled": false},
			notice: []string{"jev.enabled", "true", "false", "pin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := layerstest.New(t)
			m.Env["ANTHROPIC_API_KEY"] = "ak"
			m.UserConfig(c.user)
			if c.project != "" {
				m.ProjectConfig(c.project)
				m.TrustProject()
			}
			if c.pins != nil {
				m.Anchor()
				m.Requirements(1, map[string]any{"pins": c.pins})
			}
			s, _, err := build(t, m, sessionconfig.Request{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := s.Turn.Advisor
			switch {
			case c.want == "" && a != nil:
				t.Errorf("advisor %s, want none", a.Mode())
			case c.want != "" && a == nil:
				t.Fatalf("no advisor, want %s", c.want)
			case a != nil && a.Mode() != c.want:
				t.Errorf("advisor mode %s, want %s", a.Mode(), c.want)
			}
			if a != nil {
				want := jev.DefaultDeadline
				if c.deadline > 0 {
					want = int64ms(c.deadline)
				}
				if a.Deadline() != want {
					t.Errorf("deadline %v, want %v", a.Deadline(), want)
				}
				if s.Turn.ProjectRoot == "" {
					t.Error("no project root for the advisor")
				}
			}
			var notes []agent.Event
			for _, n := range s.Turn.Notices {
				if strings.HasPrefix(n.Key, "jev.") {
					notes = append(notes, n)
				}
			}
			if len(c.notice) == 0 {
				if len(notes) != 0 {
					t.Errorf("notices %+v", notes)
				}
				return
			}
			if len(notes) != 1 {
				t.Fatalf("jev notices %+v, want one", notes)
			}
			n := notes[0]
			if n.Type != agent.EventModeChange || n.Key != c.notice[0] || n.Requested != c.notice[1] || n.Mode != c.notice[2] || !strings.Contains(n.Text, c.notice[3]) {
				t.Errorf("notice %+v, want %v", n, c.notice)
			}
			if !strings.Contains(strings.Join(s.Warnings, "\n"), c.notice[0]) {
				t.Errorf("warnings %q do not tell the downgrade", s.Warnings)
			}
		})
	}
}

func int64ms(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
