package sessionconfig

import (
	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/layers"
)

// WorkspaceTrustOf is the workspace's trust as the start event carries it:
// the state, why, and each ignored key with its file:line (nil when the
// loader decided nothing, e.g. a Resolved built by hand).
func WorkspaceTrustOf(res *layers.Resolved) *agent.WorkspaceTrust {
	if res == nil || res.Workspace == nil {
		return nil
	}
	w := res.Workspace
	out := &agent.WorkspaceTrust{Root: w.Root, State: w.State, Reason: w.Reason}
	for _, k := range w.Ignored {
		out.Ignored = append(out.Ignored, agent.IgnoredKey{Key: k.Key, Location: k.Location(), Why: k.Why})
	}
	return out
}
