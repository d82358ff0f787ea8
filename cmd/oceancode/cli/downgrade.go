package cli

import (
	"fmt"
	"io"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// downgrade is a value asked for (by a flag, the environment, a config file
// or an agent definition) that the requirements did not let through: a
// locked-out mode, a sandbox weaker than min_sandbox_mode, a pinned key.
type downgrade struct {
	Key       string // the config key: permission_mode, agents.NAME.permission_mode, sandbox.mode, …
	Requested any
	From      provenance.Origin
	Effective any
	Reason    string
}

// note is the one sentence every command prints for a downgrade.
func (d downgrade) note() string {
	if d.isMode() {
		return fmt.Sprintf("permission mode %v (from %s) is not available: %s", d.Requested, d.From.Location(), d.Reason)
	}
	return fmt.Sprintf("%s %s (from %s) is not used: %s", d.Key, render(d.Requested), d.From.Location(), d.Reason)
}

func (d downgrade) isMode() bool {
	return d.Key == "permission_mode" || hasSuffixKey(d.Key, "permission_mode")
}

// event is the downgrade as the run's mode_change event.
func (d downgrade) event() agent.Event {
	return agent.Event{Type: agent.EventModeChange, Key: d.Key, Requested: fmt.Sprint(d.Requested), Mode: fmt.Sprint(d.Effective), Text: d.note()}
}

func hasSuffixKey(key, last string) bool {
	segs, err := provenance.SplitKey(key)
	return err == nil && len(segs) > 0 && segs[len(segs)-1] == last
}

// modeKeys are the keys a session's permission mode comes from: the top
// level and, for a named agent, the agent's own.
func modeKeys(agentName string) []string {
	keys := []string{"permission_mode"}
	if agentName != "" {
		keys = append(keys, provenance.KeyPath("agents", agentName, "permission_mode"))
	}
	return keys
}

// sandboxKeys are the sandbox settings a lock can downgrade.
var sandboxKeys = []string{"sandbox.mode", "sandbox.enabled", "sandbox.network"}

// downgrades lists what the requirements changed among keys: each refused
// value, and for a pinned key the value that would have applied without the
// pin. Built-in defaults are not requests, so they are never listed.
func downgrades(r *layers.Resolved, keys []string) []downgrade {
	var out []downgrade
	for _, k := range keys {
		e := r.Entries[k]
		if e == nil || e.Origin.Layer != provenance.Requirements {
			continue
		}
		for _, rf := range e.Refused {
			if rf.Origin.Layer == provenance.Default {
				continue
			}
			d := downgrade{Key: k, Requested: rf.Value, From: rf.Origin, Effective: e.Value, Reason: rf.Reason}
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
				out = append(out, downgrade{Key: k, Requested: ov.Value, From: ov.Origin, Effective: e.Value,
					Reason: fmt.Sprintf("the requirements (%s) pin it to %s", e.Origin.Source, render(e.Value))})
			}
			break
		}
	}
	return out
}

// announce prints each downgrade on stderr, one line each, and returns them.
func announce(w io.Writer, ds []downgrade) []downgrade {
	for _, d := range ds {
		fmt.Fprintf(w, "oceancode: %s\n", d.note())
	}
	return ds
}
