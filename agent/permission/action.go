package permission

import (
	"fmt"
	"strings"
)

// Action is what a rule or a decision says about a tool call. The order is
// meaningful: a larger Action is stricter (Allow < Ask < Deny). The zero
// value is not a valid action.
type Action int

// The actions, least strict first.
const (
	Allow Action = iota + 1
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// Valid reports whether a is Allow, Ask or Deny.
func (a Action) Valid() bool { return a >= Allow && a <= Deny }

// ParseAction parses "allow", "ask" or "deny" (case-insensitive).
func ParseAction(s string) (Action, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("permission: parse action %q: want allow, ask or deny", s)
}

// MarshalText writes the action's name.
func (a Action) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("permission: marshal action %d: invalid", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText reads an action's name.
func (a *Action) UnmarshalText(b []byte) error {
	v, err := ParseAction(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Mode is a permission mode: a coarse posture layered over the rules.
type Mode string

// The permission modes.
const (
	Default           Mode = "default"
	AcceptEdits       Mode = "acceptEdits"
	Plan              Mode = "plan"
	DontAsk           Mode = "dontAsk"
	BypassPermissions Mode = "bypassPermissions"
)

// Modes returns every mode, in the order the pager cycles them.
func Modes() []Mode {
	return []Mode{Default, AcceptEdits, Plan, DontAsk, BypassPermissions}
}

// ParseMode parses a mode name. Names are matched case-insensitively and the
// empty string is Default.
func ParseMode(s string) (Mode, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Default, nil
	}
	for _, m := range Modes() {
		if strings.EqualFold(string(m), t) {
			return m, nil
		}
	}
	return "", fmt.Errorf("permission: parse mode %q: want one of default, acceptEdits, plan, dontAsk, bypassPermissions", s)
}

// Valid reports whether m is one of the five modes.
func (m Mode) Valid() bool {
	switch m {
	case Default, AcceptEdits, Plan, DontAsk, BypassPermissions:
		return true
	}
	return false
}
