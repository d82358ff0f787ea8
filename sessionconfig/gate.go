package sessionconfig

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// GateConfig turns the resolved configuration into the permission gate's
// plain values for one agent: permission rules in layer order with their
// provenance, the requirements' locks, the shell guard's lists and the
// project boundary. run, serve, permission check and doctor --policy all
// build their gate through it.
func GateConfig(r *layers.Resolved, agent, home string) (gate.Config, error) {
	var c gate.Config
	pc := &c.Permission
	pc.Agent = agent
	modeKey := []StringKey{PermissionMode}
	if agent != "" {
		modeKey = append(modeKey, AgentPermissionMode(agent))
	}
	for _, k := range modeKey {
		mode, origin, ok, err := k.Get(r)
		if err != nil {
			return c, err
		}
		if ok {
			pc.Mode, pc.ModeOrigin = permission.Mode(mode), origin
		}
	}
	for _, lr := range r.Rules {
		a, err := permission.ParseAction(lr.Action)
		if err != nil {
			return c, fmt.Errorf("read rule %s (%s): %w", provenance.KeyPath(lr.Path...), lr.Origin.Location(), err)
		}
		n := len(lr.Path)
		rule := permission.Rule{Key: lr.Path[n-2], Pattern: lr.Path[n-1], Action: a, Origin: lr.Origin, Source: "config"}
		switch {
		case lr.Origin.Layer == provenance.Requirements && lr.Path[0] == "permission":
			rule.Source = "requirements"
			if a == permission.Deny {
				pc.Locks.Deny = append(pc.Locks.Deny, rule)
			} else {
				pc.Locks.Ask = append(pc.Locks.Ask, rule)
			}
		case lr.Path[0] == "permission":
			pc.Rules = append(pc.Rules, rule)
		case lr.Path[0] == "agents" && lr.Path[1] == agent:
			rule.Source = "agent:" + agent
			pc.AgentRules = append(pc.AgentRules, rule)
		}
	}
	if len(r.Locks.DisallowedModes) > 0 {
		pc.Locks.DisallowedModes = map[permission.Mode]string{}
		for m, why := range r.Locks.DisallowedModes {
			pc.Locks.DisallowedModes[permission.Mode(m)] = why
		}
	}

	if r.Locks.ShellPosture != "" {
		pc.Locks.ShellPosture = permission.Posture(r.Locks.ShellPosture)
		pc.Locks.PostureOrigin = provenance.Origin{Layer: provenance.Requirements}
		if r.Requirements != nil {
			pc.Locks.PostureOrigin.Source = r.Requirements.Path
		}
	}

	sc := &c.Shell
	sc.ProjectRoot, sc.Home = r.ProjectRoot, home
	var err error
	if sc.SafeListExtra, err = ShellSafeListExtra.Values(r); err != nil {
		return c, err
	}
	if sc.Allow, err = shellList(r, ShellAllow, permission.Allow); err != nil {
		return c, err
	}
	if sc.Deny, err = shellList(r, ShellDeny, permission.Deny); err != nil {
		return c, err
	}

	c.Boundary = fsguard.Boundary{ProjectRoot: r.ProjectRoot, Refs: map[string]string{}}
	refs, _, err := Refs.Decode(r)
	if err != nil {
		return c, err
	}
	for name, dir := range refs {
		c.Boundary.Refs[name] = dir
	}
	return c, nil
}

func shellList(r *layers.Resolved, k ListKey, a permission.Action) ([]shellguard.Rule, error) {
	items, err := k.Items(r)
	if err != nil {
		return nil, err
	}
	var entries []string
	var origins []provenance.Origin
	for _, it := range items {
		entries = append(entries, it.Value)
		origins = append(origins, it.Origin)
	}
	return gate.ShellRules(entries, origins, a, strings.ReplaceAll(k.Path(), "_", " "))
}
