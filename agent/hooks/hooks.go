// Package hooks runs the user's and the administrator's programs at the
// session's events, in Claude Code's shape and with its protocol
// (docs/hooks.md): the config key `hooks` maps an event (PreToolUse,
// PostToolUse, UserPromptSubmit, Stop, SessionStart, Notification) to
// matcher groups, each a matcher on the tool name and a list of command
// hooks. A hook gets the event as JSON on stdin; exit 2 blocks with its
// stderr, exit 0 with a JSON object on stdout allows, denies, asks, blocks
// or adds context, any other exit is a non-blocking error.
//
// This package parses the shape into typed hooks, each with the origin of
// its matcher group (layer, file, line), matches a tool name (OceanCode's
// or Claude's alias for it), runs the matching hooks as real subprocesses
// through the one way the agent starts commands (agent/sandbox.Supervised:
// the supervisor or the sandbox, with the composed child environment), and
// folds their answers into one Result. What a hook may decide is bounded by
// its caller: the turn loop lets a hook tighten a tool call's permission
// decision, never loosen it past the dangerous floor, a deny rule or the
// requirements. It never reads config files.
package hooks

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/oceancode/oceancode/provenance"
)

// Event names a hook event, as Claude Code spells it.
type Event string

// The events hooks run at.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SessionStart     Event = "SessionStart"
	Notification     Event = "Notification"
)

// Events lists every event, in the order a session meets them.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, Stop}

// DefaultTimeout bounds a hook that names no timeout (Claude Code's 60 s).
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds the timeout a hook may name.
const MaxTimeout = 10 * time.Minute

// Hook is one command hook.
type Hook struct {
	Event Event
	// Matcher is the group's matcher ("" matches every tool; it is not
	// used by events without a tool).
	Matcher string
	Command string
	Timeout time.Duration
	// Origin is where the hook's matcher group is set.
	Origin provenance.Origin
	// Index is the group's place in the event's list and the hook's in its
	// group, for a name when two hooks share a line.
	Group, Index int
	match        func(tool string) bool
}

// Name is "EVENT[MATCHER] COMMAND", the hook as decisions name it.
func (h Hook) Name() string {
	m := ""
	if h.Matcher != "" {
		m = "[" + h.Matcher + "]"
	}
	return fmt.Sprintf("%s%s %s", h.Event, m, h.Command)
}

// Location is "FILE:LINE" of the hook's group.
func (h Hook) Location() string { return h.Origin.Location() }

// Matches reports whether the hook runs for a call of tool (OceanCode's
// name; Claude's aliases for it match too). Events without a tool match
// every hook.
func (h Hook) Matches(tool string) bool {
	if tool == "" || h.match == nil {
		return true
	}
	if h.match(tool) {
		return true
	}
	for _, a := range ClaudeNames(tool) {
		if h.match(a) {
			return true
		}
	}
	return false
}

// Group is one matcher group as the config holds it.
type Group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Command `json:"hooks"`
}

// Command is one hook of a group as the config holds it. Timeout is in
// seconds (0: DefaultTimeout).
type Command struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"`
}

// Parse turns one matcher group of event's list (its index n) into hooks,
// each carrying o. The errors name the hook and what to fix.
func Parse(event string, n int, g Group, o provenance.Origin) ([]Hook, error) {
	ev, ok := eventOf(event)
	if !ok {
		return nil, fmt.Errorf("hooks.%s: unknown event: want one of %s", event, eventNames())
	}
	match, err := compileMatcher(g.Matcher)
	if err != nil {
		return nil, fmt.Errorf("hooks.%s[%d].matcher %q at %s: %w", event, n, g.Matcher, o.Location(), err)
	}
	var out []Hook
	for i, c := range g.Hooks {
		at := fmt.Sprintf("hooks.%s[%d].hooks[%d] at %s", event, n, i, o.Location())
		if c.Type != "command" {
			return nil, fmt.Errorf("%s: type %q: only \"command\" hooks run here", at, c.Type)
		}
		if strings.TrimSpace(c.Command) == "" {
			return nil, fmt.Errorf("%s: command is empty", at)
		}
		t := DefaultTimeout
		if c.Timeout != 0 {
			t = time.Duration(c.Timeout * float64(time.Second))
			if t <= 0 || t > MaxTimeout {
				return nil, fmt.Errorf("%s: timeout %v: want seconds between 1 and %d", at, c.Timeout, int(MaxTimeout/time.Second))
			}
		}
		out = append(out, Hook{Event: ev, Matcher: g.Matcher, Command: c.Command, Timeout: t, Origin: o, Group: n, Index: i, match: match})
	}
	return out, nil
}

func eventOf(s string) (Event, bool) {
	for _, e := range Events {
		if string(e) == s {
			return e, true
		}
	}
	return "", false
}

func eventNames() string {
	var s []string
	for _, e := range Events {
		s = append(s, string(e))
	}
	return strings.Join(s, ", ")
}

// plainMatcher is a matcher Claude Code compares exactly (with |
// alternatives): letters, digits, _ and |.
var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// compileMatcher follows Claude Code: "" and "*" match every tool; a plain
// name (or names joined by |) matches exactly; anything else is a regular
// expression that must match the whole name. Matching is case-sensitive.
func compileMatcher(m string) (func(string) bool, error) {
	switch {
	case m == "" || m == "*":
		return nil, nil
	case plainMatcher.MatchString(m):
		names := strings.Split(m, "|")
		return func(t string) bool {
			for _, n := range names {
				if n == t {
					return true
				}
			}
			return false
		}, nil
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return nil, fmt.Errorf("not a regular expression: %v", err)
	}
	return re.MatchString, nil
}

// claudeNames maps OceanCode's tool names to Claude Code's for the same
// tool. apply_patch answers to Edit too: a hook on Claude's file edits
// (Edit|MultiEdit|Write) is meant for every edit. MCP tools are named
// mcp__SERVER__TOOL in both.
var claudeNames = map[string][]string{
	"bash":        {"Bash"},
	"read":        {"Read"},
	"edit":        {"Edit", "MultiEdit"},
	"apply_patch": {"Edit", "MultiEdit"},
	"write":       {"Write"},
	"glob":        {"Glob"},
	"grep":        {"Grep"},
	"list":        {"LS"},
	"webfetch":    {"WebFetch"},
	"task":        {"Task"},
	"todo":        {"TodoWrite"},
	"question":    {"AskUserQuestion"},
}

// ClaudeNames returns Claude Code's names for OceanCode's tool (nil: none).
func ClaudeNames(tool string) []string { return claudeNames[tool] }
