package policyproof

import (
	"strings"

	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/sessionconfig"
)

// probeHook is the command of the hook the proof sets in each layer.
const probeHook = "oceancode-doctor-probe-hook"

// managedHooks proves allow_managed_hooks_only: a hook set in the project,
// user or session layer is not among the session's hooks, and it is
// named as dropped (the stderr line and inspect's), never dropped
// silently.
func (p *prover) managedHooks() {
	lock := Lock{Kind: ManagedHooks}
	group := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": probeHook}}}}
	paths := append(layerPaths[:2:2], struct {
		layer provenance.Layer
		name  string
	}{provenance.Session, "session settings"})
	for _, lp := range paths {
		r := p.resolve(probe(lp.layer, "hooks.PreToolUse", group), nil, nil)
		if err := refused(r); err != nil {
			p.notRun(lock, lp.name, err)
			continue
		}
		hs, err := sessionconfig.HooksOf(r)
		if err != nil {
			p.notRun(lock, lp.name, err)
			continue
		}
		ran, named := false, false
		for _, h := range hs {
			ran = ran || h.Command == probeHook
		}
		for _, d := range r.Locks.DroppedHooks {
			named = named || (d.Origin.Layer == lp.layer && strings.Contains(d.String(), probeHook))
		}
		switch {
		case ran:
			p.add(lock, lp.name, Broken, "a hook set here would run")
		case !named:
			p.add(lock, lp.name, Broken, "a hook set here is dropped without being named")
		default:
			p.add(lock, lp.name, Held, "a hook set here is dropped, and named on stderr and by inspect")
		}
	}
}
