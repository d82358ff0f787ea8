package pager

import (
	"fmt"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/permission"
)

// cycleModes is the Shift+Tab cycle: default → acceptEdits (auto) → plan
// → default.
var cycleModes = []permission.Mode{permission.Default, permission.AcceptEdits, permission.Plan}

// modeOptions are the modes with their locks: the state's when the engine
// says (State.Modes), else every permission mode unlocked (the engine still
// enforces its locks: a locked mode comes back downgraded).
func modeOptions(st engineapi.State) []engineapi.ModeOption {
	if len(st.Modes) > 0 {
		return st.Modes
	}
	var out []engineapi.ModeOption
	for _, m := range permission.Modes() {
		out = append(out, engineapi.ModeOption{Mode: m})
	}
	return out
}

// modeOption is m's option (unlocked when the state does not list it).
func modeOption(st engineapi.State, m permission.Mode) engineapi.ModeOption {
	for _, o := range modeOptions(st) {
		if o.Mode == m {
			return o
		}
	}
	return engineapi.ModeOption{Mode: m}
}

// nextInCycle is the cycle's mode after from (a mode outside the cycle,
// such as bypassPermissions, goes back to its start).
func nextInCycle(from permission.Mode) permission.Mode {
	for i, m := range cycleModes {
		if m == from {
			return cycleModes[(i+1)%len(cycleModes)]
		}
	}
	return cycleModes[0]
}

// cycle is where one Shift+Tab press from `from` goes, with its lock: a
// locked mode is not entered (the press says why) and the next press goes
// on from it.
func cycle(st engineapi.State, from permission.Mode) engineapi.ModeOption {
	return modeOption(st, nextInCycle(from))
}

func lockedNotice(m permission.Mode, reason string) string {
	if reason == "" {
		reason = "not allowed"
	}
	return fmt.Sprintf("%s locked: %s", m, reason)
}

// modeLabel is how the status line names a mode (the pager's names for
// the seed's modes: auto is acceptEdits, always-approve bypassPermissions).
func modeLabel(m permission.Mode) string {
	switch m {
	case permission.AcceptEdits:
		return "auto (acceptEdits)"
	case permission.BypassPermissions:
		return "always-approve (bypassPermissions)"
	case "":
		return string(permission.Default)
	}
	return string(m)
}
