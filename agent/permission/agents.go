package permission

import (
	"strings"

	"github.com/oceancode/oceancode/provenance"
)

// The built-in agents.
const (
	AgentBuild   = "build"
	AgentPlan    = "plan"
	AgentExplore = "explore"
)

// PlanFilePattern is the edit pattern the plan agent and plan mode leave
// open: the plan file.
const PlanFilePattern = ".oceancode/plans/*.md"

func agentName(a string) string {
	a = strings.TrimSpace(a)
	if a == "" {
		return AgentBuild
	}
	return a
}

func rule(key, pattern string, a Action, source string, o provenance.Origin) *Rule {
	return &Rule{Key: key, Pattern: pattern, Action: a, Origin: o, Source: source}
}

// agentDefaults are the rules every agent starts from, right after the base
// rule; config rules come after them and may change them.
func agentDefaults(agent string) []*Rule {
	src := "agent:" + agent
	return []*Rule{
		rule("external_directory", "*", Ask, src, builtin),
		rule("doom_loop", "*", Ask, src, builtin),
		rule("webfetch", "*", Ask, src, builtin),
	}
}

// exploreTools are the keys the explore agent keeps: local read-only tools
// and the keys that are not tools of their own.
var exploreTools = []string{"read", "grep", "glob", "list", "todo", "question", "external_directory", "doom_loop"}

// agentRestrictions are what makes an agent what it is. They are evaluated
// after the config rules and can only narrow, so no config rule and no mode
// gives the explore agent bash or the plan agent edits outside its plan file.
func agentRestrictions(agent string) []*Rule {
	src := "agent:" + agent
	switch agent {
	case AgentPlan:
		return planRules(src, builtin)
	case AgentExplore:
		rs := []*Rule{rule("*", "*", Deny, src, builtin)}
		for _, k := range exploreTools {
			rs = append(rs, rule(k, "*", Allow, src, builtin))
		}
		return rs
	}
	return nil
}

// planRules are the plan agent's restrictions and the plan mode's rules:
// edits denied except the plan file; bash asks (read-only commands on the
// shell guard's safe list still run).
func planRules(src string, o provenance.Origin) []*Rule {
	return []*Rule{
		rule("edit", "*", Deny, src, o),
		rule("edit", PlanFilePattern, Allow, src, o),
		rule("bash", "*", Ask, src, o),
	}
}

// modeRules are the rules a mode appends.
func modeRules(m Mode, o provenance.Origin) []*Rule {
	if o == (provenance.Origin{}) {
		o = builtin
	}
	src := "mode:" + string(m)
	switch m {
	case AcceptEdits:
		return []*Rule{rule("edit", "*", Allow, src, o)}
	case Plan:
		return planRules(src, o)
	case BypassPermissions:
		return []*Rule{rule("*", "*", Allow, src, o)}
	}
	return nil // default: none; dontAsk: a conversion, not a rule
}
