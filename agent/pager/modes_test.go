package pager

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/runner"
)

const planLock = "locked out by requirements /etc/oceancode/requirements.json (serial 7)"

// TestShiftTabCycle: Shift+Tab goes default → acceptEdits → plan →
// default through the engine; plan, locked, is not entered: the status
// line says why for that press, the engine stays where it was, and the
// next press goes on.
func TestShiftTabCycle(t *testing.T) {
	f := newFixture(t)
	f.locks = permission.Locks{DisallowedModes: map[permission.Mode]string{permission.Plan: planLock}}
	s, eng := f.start("")
	h := newHarness(t, eng, 100, 24, true)
	h.until("the state", func() bool { return h.m.state.Mode.Mode == permission.Default })

	h.key("shift+tab")
	h.until("acceptEdits", func() bool {
		return s.Mode().Mode == permission.AcceptEdits && strings.Contains(h.view(), "auto (acceptEdits)")
	})

	h.key("shift+tab")
	h.until("the lock notice", func() bool { return strings.Contains(h.view(), "plan locked: plan is locked out by") })
	h.settle()
	if got := s.Mode().Mode; got != permission.AcceptEdits {
		t.Errorf("after the locked press the engine is in %s, want acceptEdits", got)
	}
	if !strings.Contains(h.view(), "plan locked:") {
		t.Errorf("the notice went away: %q", h.view())
	}

	h.key("shift+tab")
	h.until("default", func() bool { return s.Mode().Mode == permission.Default && h.m.state.Mode.Mode == permission.Default })
	if strings.Contains(h.view(), "locked") {
		t.Errorf("the next press still says locked: %q", h.view())
	}
	if !strings.Contains(h.printed(), "mode → auto (acceptEdits)") {
		t.Errorf("scrollback:\n%s", h.printed())
	}
}

// TestAlwaysApproveRefused: ctrl+o and /always-approve ask the engine for
// bypassPermissions; locked, they are refused with the reason and the
// pager stays in its mode.
func TestAlwaysApproveRefused(t *testing.T) {
	f := newFixture(t)
	f.locks = permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "disable_bypass_permissions (requirements serial 7)"}}
	s, eng := f.start("")
	h := newHarness(t, eng, 120, 24, true)
	h.until("the state", func() bool { return h.m.state.Mode.Mode == permission.Default })
	h.send(commandMsg{"auto", nil})
	h.until("acceptEdits", func() bool { return s.Mode().Mode == permission.AcceptEdits })

	h.key("ctrl+o")
	h.until("the refusal", func() bool { return strings.Contains(h.view(), "refused: bypassPermissions is disable_bypass") })
	h.settle()
	if got := s.Mode().Mode; got != permission.AcceptEdits {
		t.Errorf("after ctrl+o the engine is in %s, want acceptEdits", got)
	}
	h.send(commandMsg{"always-approve", nil})
	h.until("the refusal", func() bool { return strings.Contains(h.view(), "refused: bypassPermissions is disable_bypass") })
	h.settle()
	if got := s.Mode().Mode; got != permission.AcceptEdits {
		t.Errorf("after /always-approve the engine is in %s, want acceptEdits", got)
	}
}

// TestAlwaysApproveAllowed: unlocked, ctrl+o enters bypassPermissions.
func TestAlwaysApproveAllowed(t *testing.T) {
	f := newFixture(t)
	s, eng := f.start("")
	h := newHarness(t, eng, 120, 24, true)
	h.key("ctrl+o")
	h.until("bypassPermissions", func() bool { return s.Mode().Mode == permission.BypassPermissions })
	h.until("the status line", func() bool { return strings.Contains(h.view(), "always-approve (bypassPermissions)") })
	// /mode lists the modes, /mode MODE sets one.
	h.send(commandMsg{"mode", []string{"plan"}})
	h.until("plan", func() bool { return s.Mode().Mode == permission.Plan && h.m.state.Mode.Mode == permission.Plan })
	h.send(commandMsg{"mode", []string{"sideways"}})
	h.send(commandMsg{"mode", nil})
	h.settle()
	out := h.printed()
	if !strings.Contains(out, "/mode: ") || !strings.Contains(out, "modes (now plan") || !strings.Contains(out, "● plan") {
		t.Errorf("scrollback:\n%s", out)
	}
}

// TestCycleWithModes: when the state lists the modes and their locks, a
// locked mode is refused without asking the engine, and the cycle skips
// on from it.
func TestCycleWithModes(t *testing.T) {
	st := runner.State{Mode: runner.ModeResult{Mode: permission.AcceptEdits}, Modes: []runner.ModeOption{
		{Mode: permission.Default}, {Mode: permission.AcceptEdits}, {Mode: permission.Plan, Locked: true, Reason: "requirements"},
		{Mode: permission.BypassPermissions, Locked: true, Reason: "disable_bypass_permissions"}}}
	tests := []struct {
		from   permission.Mode
		want   permission.Mode
		locked bool
	}{
		{permission.Default, permission.AcceptEdits, false},
		{permission.AcceptEdits, permission.Plan, true},
		{permission.Plan, permission.Default, false},
		{permission.BypassPermissions, permission.Default, false},
		{permission.DontAsk, permission.Default, false},
	}
	for _, tt := range tests {
		got := cycle(st, tt.from)
		if got.Mode != tt.want || got.Locked != tt.locked {
			t.Errorf("cycle from %s = %+v, want %s locked=%v", tt.from, got, tt.want, tt.locked)
		}
	}
	if o := modeOption(runner.State{}, permission.Plan); o.Locked {
		t.Error("without Modes a mode is locked")
	}
	if n := len(modeOptions(runner.State{})); n != len(permission.Modes()) {
		t.Errorf("modes without State.Modes = %d", n)
	}
	// The model refuses it locally: no engine call (a nil engine would panic).
	m := newModel(t.Context(), Options{})
	m.state = st
	if cmd := m.cycleMode(); cmd != nil {
		t.Error("a locked mode in the cycle was sent to the engine")
	}
	if m.notice != "plan locked: requirements" || m.cycleAt != permission.Plan {
		t.Errorf("notice %q cycleAt %q", m.notice, m.cycleAt)
	}
	if cmd := m.requestMode(permission.BypassPermissions, "always-approve"); cmd != nil || m.notice != "refused: disable_bypass_permissions" {
		t.Errorf("always-approve: notice %q", m.notice)
	}
}
