package sessionconfig

import (
	"fmt"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// Downgrade is a value asked for (by a flag, the environment, a config
// file or an agent definition) that the requirements did not let through:
// a locked-out mode, a sandbox weaker than min_sandbox_mode, a pinned key.
type Downgrade struct {
	Key       string // the config key: permission_mode, agents.NAME.permission_mode, sandbox.mode, …
	Requested any
	From      provenance.Origin
	Effective any
	Reason    string
}

// Note is the one sentence every front end shows for a downgrade.
func (d Downgrade) Note() string {
	if d.isMode() {
		return fmt.Sprintf("permission mode %v (from %s) is not available: %s", d.Requested, d.From.Location(), d.Reason)
	}
	return fmt.Sprintf("%s %s (from %s) is not used: %s", d.Key, render(d.Requested), d.From.Location(), d.Reason)
}

func (d Downgrade) isMode() bool {
	return d.Key == PermissionMode.Path() || hasSuffixKey(d.Key, "permission_mode")
}

// Event is the downgrade as a session's mode_change event.
func (d Downgrade) Event() agent.Event {
	return agent.Event{Type: agent.EventModeChange, Key: d.Key, Requested: fmt.Sprint(d.Requested), Mode: fmt.Sprint(d.Effective), Text: d.Note()}
}

func hasSuffixKey(key, last string) bool {
	segs, err := provenance.SplitKey(key)
	return err == nil && len(segs) > 0 && segs[len(segs)-1] == last
}

// ModeKeys are the keys a session's permission mode comes from: the top
// level and, for a named agent, the agent's own.
func ModeKeys(agentName string) []Key {
	keys := []Key{PermissionMode}
	if agentName != "" {
		keys = append(keys, AgentPermissionMode(agentName))
	}
	return keys
}

// SandboxKeys are the sandbox settings a lock can downgrade.
var SandboxKeys = []Key{SandboxMode, SandboxEnabled, SandboxNetwork}

// Downgrades lists what the requirements changed among keys: each refused
// value, and for a pinned key the value that would have applied without
// the pin. Built-in defaults are not requests, so they are never listed.
func Downgrades(r *layers.Resolved, keys ...Key) []Downgrade {
	var out []Downgrade
	for _, key := range keys {
		k := key.Path()
		e := entry(r, key)
		if e == nil || e.Origin.Layer != provenance.Requirements {
			continue
		}
		for _, rf := range e.Refused {
			if rf.Origin.Layer == provenance.Default {
				continue
			}
			d := Downgrade{Key: k, Requested: rf.Value, From: rf.Origin, Effective: e.Value, Reason: rf.Reason}
			if !d.isMode() { // a mode's reason already says what it became
				d.Reason += "; using " + render(e.Value)
			}
			out = append(out, d)
		}
		if !e.Origin.Pinned || len(e.Refused) > 0 {
			continue
		}
		// Overrides are highest layer first: the first one is what this
		// session would have had without the pin.
		for _, ov := range e.Overrides {
			if ov.Origin.Layer == provenance.Requirements {
				continue
			}
			if ov.Origin.Layer != provenance.Default && fmt.Sprint(ov.Value) != fmt.Sprint(e.Value) {
				out = append(out, Downgrade{Key: k, Requested: ov.Value, From: ov.Origin, Effective: e.Value,
					Reason: fmt.Sprintf("the requirements (%s) pin it to %s", e.Origin.Source, render(e.Value))})
			}
			break
		}
	}
	return out
}
