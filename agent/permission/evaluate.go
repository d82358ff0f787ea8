package permission

import (
	"strings"

	"github.com/oceancode/oceancode/provenance"
)

// Shell guard verdicts, as ShellVerdict carries them (the shell guard's
// Verdict.String values).
const (
	VerdictSafe  = "safe"  // on the read-only safe list
	VerdictAllow = "allow" // a shell.allow rule matched
	VerdictAsk   = "ask"   // not safe: subject to the bash rules
	VerdictDeny  = "deny"  // a shell.deny rule matched
	VerdictFloor = "floor" // the dangerous floor: refused, nothing reopens it
)

// ShellVerdict is the shell guard's finding for one bash command, as plain
// input (the engine does not import the shell guard).
type ShellVerdict struct {
	// Verdict is the whole command's verdict: "safe", "allow", "ask",
	// "deny" or "floor". Anything else counts as "ask".
	Verdict string
	// Reason is the guard's explanation (for "floor" and "deny" it becomes
	// the decision's reason).
	Reason string
	// Segments holds each segment's argv joined with single spaces, for
	// per-segment rule matching.
	Segments []string
	// Verdicts optionally gives each segment's own verdict, parallel to
	// Segments. When its length differs, every segment takes Verdict.
	// A "floor" or "deny" anywhere in it decides the whole command.
	Verdicts []string
	// Rules optionally gives, parallel to Segments, the shell.allow or
	// shell.deny rule (with its provenance) behind an "allow" or "deny"
	// segment verdict; nil entries are allowed.
	Rules []*Rule
	// OutsidePaths are paths outside the project the command names (or its
	// working directory), checked under external_directory.
	OutsidePaths []string
}

// segVerdict returns segment i's verdict.
func (sv *ShellVerdict) segVerdict(i int) string {
	if len(sv.Verdicts) == len(sv.Segments) && i < len(sv.Verdicts) {
		return sv.Verdicts[i]
	}
	return sv.Verdict
}

func (sv *ShellVerdict) segRule(i int) *Rule {
	if i >= 0 && i < len(sv.Rules) && len(sv.Rules) == len(sv.Segments) {
		return sv.Rules[i]
	}
	return nil
}

// MCPOrigin is where an MCP server was declared. It decides an MCP call no
// rule decides.
type MCPOrigin int

// The MCP server origins. The zero value is unknown and asks.
const (
	MCPOriginUnknown MCPOrigin = iota
	MCPConfig                  // the project's .oceancode/oceancode.json, the global config, ~/.claude.json, the project-local tier
	MCPClient                  // passed by the client (Xcode)
	MCPProjectFile             // the project's .mcp.json
	MCPPlugin                  // a plugin
	MCPRuntime                 // added at runtime (POST /mcp, /mcp add)
)

var mcpOriginNames = [...]string{"unknown", "config", "client", "project .mcp.json", "plugin", "runtime"}

func (o MCPOrigin) String() string {
	if o < 0 || int(o) >= len(mcpOriginNames) {
		return "unknown"
	}
	return mcpOriginNames[o]
}

// trusted reports whether servers of this origin run without asking.
func (o MCPOrigin) trusted() bool { return o == MCPConfig || o == MCPClient }

// Call is one tool call to decide.
type Call struct {
	// Tool is the tool's name (bash, read, write, edit, apply_patch, mcp,
	// doom_loop, …); it is mapped to its key with Key.
	Tool string
	// Pattern is what rules match: for bash the command (used when Shell
	// has no segments), for file tools the path relative to the project
	// (slash-separated; absolute when outside it), for mcp
	// "<server>/<tool>", for doom_loop the repeated tool's name.
	Pattern string
	// Shell is the shell guard's verdict, for bash. A bash call without
	// one is matched as a single segment that is not safe.
	Shell *ShellVerdict
	// Outside lists the paths outside the project a file tool touches
	// (fsguard's Resolved.Outside), checked under external_directory.
	Outside []string
	// MCPOrigin is the server's origin, for mcp.
	MCPOrigin MCPOrigin
	// MCPIdentity is a digest of the server's definition and executable
	// (agent/mcp): an "always" for the server or one of its tools is bound
	// to it, so a changed server asks again. "" binds to the name alone.
	MCPIdentity string
	// Approvals is the session's memory of "always" answers (nil: none).
	Approvals *Approvals
}

// Decision is the engine's answer for one call.
type Decision struct {
	Action Action
	// Rule is the rule that decided; nil only for the dangerous floor.
	Rule *Rule
	// Origin is where the deciding rule came from.
	Origin provenance.Origin
	// Reason says why, in words.
	Reason string
	// Floor is true when the dangerous floor decided.
	Floor bool
	// Key and Pattern are the unit that decided: for a chained bash
	// command the segment, for an outside path external_directory and the
	// path.
	Key, Pattern string
	// Approved is true when a session approval turned an ask into allow.
	Approved bool
	// DontAsk is true when dontAsk turned an ask into this deny.
	DontAsk bool
}

// ResidualAsk reports whether the decision is an ask that only a catch-all
// "*" rule settled — the kind the Jev advisor may look at. A requirements
// ask (a rule, or the default-deny shell posture) is never residual.
func (d Decision) ResidualAsk() bool {
	return d.Action == Ask && d.Rule != nil && d.Rule.Pattern == "*" && !strings.HasPrefix(d.Rule.Source, "requirements")
}

// Posture reports whether the default-deny shell posture decided: an ask
// that headless --auto must not approve (no layer below the requirements
// loosens the posture).
func (d Decision) Posture() bool {
	return d.Action == Ask && d.Rule != nil && d.Rule.Source == PostureSource
}

// PostureSource is the Source of the default-deny shell posture's rule.
const PostureSource = "requirements:shell_posture"

// Reasons (constants, so Evaluate does not format strings).
const (
	reasonRule       = "the last matching rule decides"
	reasonSafe       = "read-only command on the shell guard's safe list"
	reasonShellAllow = "matched a shell.allow rule"
	reasonRestrict   = "the agent's restriction (it can only narrow)"
	reasonMode       = "the permission mode's rule"
	reasonReq        = "a requirements rule (requirements can only narrow)"
	reasonPosture    = "the requirements' default-deny shell posture: every bash command asks, and no lower layer loosens it"
	reasonApproved   = "approved for this session"
	reasonDontAsk    = "dontAsk mode turns an ask into a deny"
	reasonFloor      = "dangerous command: refused by the dangerous floor"
	reasonShellDeny  = "matched a shell.deny rule"
	reasonMCPTrust   = "no mcp rule decides: the server is declared in config or by the client, so it runs without asking"
	reasonMCPAsk     = "no mcp rule decides: the server comes from a project .mcp.json, a plugin or a runtime add, so it asks"
	reasonMCPUnk     = "no mcp rule decides: the server's origin is unknown, so it asks"
)

var (
	shellDenyRule  = &Rule{Key: "bash", Pattern: "*", Action: Deny, Origin: builtin, Source: "shell.deny"}
	shellAllowRule = &Rule{Key: "bash", Pattern: "*", Action: Allow, Origin: builtin, Source: "shell.allow"}
	safeListRule   = &Rule{Key: "bash", Pattern: "*", Action: Allow, Origin: builtin, Source: "shell:safe-list"}
	mcpAllowRule   = &Rule{Key: "mcp", Pattern: "*", Action: Allow, Origin: builtin, Source: "mcp-origin:config"}
	mcpAskRule     = &Rule{Key: "mcp", Pattern: "*", Action: Ask, Origin: builtin, Source: "mcp-origin:untrusted"}
	floorOrigin    = provenance.Origin{Layer: provenance.Default, Source: "builtin:dangerous-floor"}
)

// unit is the outcome for one (key, pattern).
type unit struct {
	act      Action
	rule     *Rule
	reason   string
	tier     tier
	approved bool
	origin   bool // decided by the MCP origin fallback
}

// Evaluate decides c. See the package documentation for the order.
func (e *Engine) Evaluate(c Call) Decision {
	key := Key(c.Tool)
	var best unit
	var bestKey, bestPat string

	switch key {
	case "bash":
		sv := c.Shell
		if sv == nil { // no verdict: one segment, not safe
			best = e.decide(key, c.Pattern, false, nil, c)
			bestKey, bestPat = key, c.Pattern
			break
		}
		if d, ok := shellRefusal(sv, c.Pattern); ok {
			return d
		}
		if len(sv.Segments) == 0 {
			best = e.decide(key, c.Pattern, safeVerdict(sv.Verdict), allowRuleFor(sv.Verdict, nil), c)
			bestKey, bestPat = key, c.Pattern
			break
		}
		for i, s := range sv.Segments {
			v := sv.segVerdict(i)
			u := e.decide(key, s, safeVerdict(v), allowRuleFor(v, sv.segRule(i)), c)
			if i == 0 || u.act > best.act {
				best, bestKey, bestPat = u, key, s
			}
		}
	default:
		pat := c.Pattern
		if fileKey(key) {
			pat = strings.TrimPrefix(pat, "./")
		}
		best = e.decide(key, pat, false, nil, c)
		bestKey, bestPat = key, pat
		if readAlso(key) {
			if u := e.decide("read", pat, false, nil, c); u.act > best.act {
				best, bestKey = u, "read"
			}
		}
	}

	outside := c.Outside
	if c.Shell != nil && len(c.Shell.OutsidePaths) > 0 {
		outside = c.Shell.OutsidePaths
	}
	for _, p := range outside {
		if u := e.decide("external_directory", p, false, nil, c); u.act > best.act {
			best, bestKey, bestPat = u, "external_directory", p
		}
	}

	d := Decision{Action: best.act, Rule: best.rule, Reason: best.reason, Key: bestKey, Pattern: bestPat, Approved: best.approved}
	if best.rule != nil {
		d.Origin = best.rule.Origin
	}
	if d.Action == Ask && e.mode == DontAsk {
		d.Action = Deny
		d.DontAsk = true
		d.Reason = reasonDontAsk
	}
	return d
}

// safeVerdict reports whether a segment verdict lets the segment run
// without a rule: on the safe list, or approved by shell.allow.
func safeVerdict(v string) bool { return v == VerdictSafe || v == VerdictAllow }

// allowRuleFor returns the shell.allow rule behind an "allow" verdict.
func allowRuleFor(v string, r *Rule) *Rule {
	if v != VerdictAllow {
		return nil
	}
	if r == nil {
		return shellAllowRule
	}
	return r
}

// shellRefusal returns the floor or shell.deny decision, if the verdict is
// one: the whole command's verdict or any segment's.
func shellRefusal(sv *ShellVerdict, pattern string) (Decision, bool) {
	floor, deny := sv.Verdict == VerdictFloor, sv.Verdict == VerdictDeny
	seg := -1
	for i, v := range sv.Verdicts {
		switch v {
		case VerdictFloor:
			floor = true
			if seg < 0 || sv.Verdicts[seg] != VerdictFloor {
				seg = i
			}
		case VerdictDeny:
			deny = true
			if seg < 0 {
				seg = i
			}
		}
	}
	if seg >= 0 && seg < len(sv.Segments) {
		pattern = sv.Segments[seg]
	}
	switch {
	case floor:
		reason := sv.Reason
		if reason == "" {
			reason = reasonFloor
		}
		return Decision{Action: Deny, Origin: floorOrigin, Reason: reason, Floor: true, Key: "bash", Pattern: pattern}, true
	case deny:
		r := sv.segRule(seg)
		if r == nil {
			r = shellDenyRule
		}
		reason := sv.Reason
		if reason == "" {
			reason = reasonShellDeny
		}
		return Decision{Action: Deny, Rule: r, Origin: r.Origin, Reason: reason, Key: "bash", Pattern: pattern}, true
	}
	return Decision{}, false
}

// lastMatch returns the last rule in l matching pat. For a safe bash
// segment, catch-all asks are skipped: "bash * ask" makes every command off
// the safe list ask, and leaves the safe list alone.
func lastMatch(l []crule, pat string, safe bool) *crule {
	for i := len(l) - 1; i >= 0; i-- {
		c := &l[i]
		if safe && c.catchAll && c.r.Action == Ask {
			continue
		}
		if c.m.match(pat) {
			return c
		}
	}
	return nil
}

// decide runs the tiers for one (key, pattern). safe is true for a bash
// segment the shell guard found safe or shell.allow approved (allowRule,
// when known, is that shell.allow rule).
func (e *Engine) decide(key, pat string, safe bool, allowRule *Rule, c Call) unit {
	var u unit
	if m := lastMatch(e.tiers[tierRules].forKey(key), pat, safe); m != nil {
		u = unit{act: m.r.Action, rule: m.r, reason: reasonRule, tier: tierRules}
		if m.r == e.base {
			switch {
			case safe && allowRule != nil:
				u.rule, u.reason = allowRule, reasonShellAllow
			case safe:
				u.rule, u.reason = safeListRule, reasonSafe
			case key == "mcp":
				u.origin = true
				switch {
				case c.MCPOrigin.trusted():
					u.act, u.rule, u.reason = Allow, mcpAllowRule, reasonMCPTrust
				case c.MCPOrigin == MCPOriginUnknown:
					u.act, u.rule, u.reason = Ask, mcpAskRule, reasonMCPUnk
				default:
					u.act, u.rule, u.reason = Ask, mcpAskRule, reasonMCPAsk
				}
			}
		}
	} else { // only a safe segment under nothing but catch-all asks: cannot happen with the base rule
		u = unit{act: Allow, rule: safeListRule, reason: reasonSafe}
	}
	if m := lastMatch(e.tiers[tierRestrict].forKey(key), pat, safe); m != nil && m.r.Action > u.act {
		u = unit{act: m.r.Action, rule: m.r, reason: reasonRestrict, tier: tierRestrict}
	}
	if u.act != Deny {
		if m := lastMatch(e.tiers[tierMode].forKey(key), pat, safe); m != nil {
			u = unit{act: m.r.Action, rule: m.r, reason: reasonMode, tier: tierMode, origin: u.origin && m.r.Action == u.act}
		}
	}
	// Requirements: the strictest matching rule, when at least as strict as
	// the decision so far. An equally strict requirements rule takes over,
	// so the decision names the rule the user cannot remove and a session
	// approval cannot turn a requirements ask into allow.
	l := e.tiers[tierReq].forKey(key)
	for i := len(l) - 1; i >= 0; i-- {
		m := &l[i]
		if m.r.Action < u.act || (u.tier == tierReq && m.r.Action == u.act) || (safe && m.catchAll && m.r.Action == Ask && !m.strict) || !m.m.match(pat) {
			continue
		}
		u = unit{act: m.r.Action, rule: m.r, reason: reasonReq, tier: tierReq}
		if m.strict {
			u.reason = reasonPosture
		}
	}
	if u.act == Ask && u.tier != tierReq && c.Approvals != nil && c.Approvals.covers(key, pat, u.origin, c.MCPIdentity) {
		u.act, u.approved, u.reason = Allow, true, reasonApproved
	}
	return u
}

// Offered returns the tools, from tools, that are offered to the model: a
// tool whose last rule for its key is a "*" deny is left out (write,
// apply_patch and hashline count as edit; grep, glob and list are also left
// out when read is). A narrower last rule keeps the tool, so the plan agent
// still sees edit for its plan file. The result keeps the input order.
func (e *Engine) Offered(tools []string) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		k := Key(t)
		if e.keyDenied(k) || (readAlso(k) && e.keyDenied("read")) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// OfferedMCP reports whether the MCP tool server/tool is offered: it is left
// out when a rule denies it whatever the server's origin.
func (e *Engine) OfferedMCP(server, tool string) bool {
	if e.keyDenied("mcp") {
		return false
	}
	return e.Evaluate(Call{Tool: "mcp", Pattern: server + "/" + tool, MCPOrigin: MCPConfig}).Action != Deny
}

// keyDenied reports whether every call under key is denied by a "*" deny.
func (e *Engine) keyDenied(key string) bool {
	wholeDeny := func(l []crule) (last *crule) {
		if len(l) == 0 {
			return nil
		}
		return &l[len(l)-1]
	}
	denied := false
	if m := wholeDeny(e.tiers[tierRules].forKey(key)); m != nil {
		denied = m.catchAll && m.r.Action == Deny
	}
	if m := wholeDeny(e.tiers[tierRestrict].forKey(key)); m != nil && m.catchAll && m.r.Action == Deny {
		denied = true
	}
	if !denied {
		if m := wholeDeny(e.tiers[tierMode].forKey(key)); m != nil && m.catchAll && m.r.Action == Deny {
			denied = true
		}
	}
	for _, m := range e.tiers[tierReq].forKey(key) {
		if m.catchAll && m.r.Action == Deny {
			denied = true
		}
	}
	return denied
}
