package cli

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/v2"

	"github.com/oceancode/oceancode/agent/fsguard"
	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// gateConfig turns the resolved configuration into the runtime's plain
// values for one agent: permission rules in layer order with their
// provenance, the requirements' locks, the shell guard's lists and the
// project boundary. This is the one place config becomes runtime input.
func gateConfig(r *layers.Resolved, agent, home string) (gate.Config, error) {
	var c gate.Config
	pc := &c.Permission
	pc.Agent = agent
	if e := r.Entries["permission_mode"]; e != nil {
		mode, _ := e.Value.(string)
		pc.Mode, pc.ModeOrigin = permission.Mode(mode), e.Origin
	}
	if agent != "" {
		if e := r.Entries[provenance.KeyPath("agents", agent, "permission_mode")]; e != nil {
			mode, _ := e.Value.(string)
			pc.Mode, pc.ModeOrigin = permission.Mode(mode), e.Origin
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

	sc := &c.Shell
	sc.ProjectRoot, sc.Home = r.ProjectRoot, home
	for _, it := range r.Lists["shell.safe_list_extra"] {
		if s, ok := it.Value.(string); ok {
			sc.SafeListExtra = append(sc.SafeListExtra, s)
		}
	}
	var err error
	if sc.Allow, err = shellList(r, "shell.allow", permission.Allow); err != nil {
		return c, err
	}
	if sc.Deny, err = shellList(r, "shell.deny", permission.Deny); err != nil {
		return c, err
	}

	c.Boundary = fsguard.Boundary{ProjectRoot: r.ProjectRoot, Refs: map[string]string{}}
	for _, k := range r.Entries.WithPrefix("refs") {
		segs, _ := provenance.SplitKey(k)
		if dir, ok := r.Entries[k].Value.(string); ok && len(segs) == 2 {
			c.Boundary.Refs[segs[1]] = dir
		}
	}
	return c, nil
}

func shellList(r *layers.Resolved, key string, a permission.Action) ([]shellguard.Rule, error) {
	var entries []string
	var origins []provenance.Origin
	for _, it := range r.Lists[key] {
		if s, ok := it.Value.(string); ok {
			entries = append(entries, s)
			origins = append(origins, it.Origin)
		}
	}
	return gate.ShellRules(entries, origins, a, strings.ReplaceAll(key, "_", " "))
}

// decodeKey decodes the resolved subtree at key into out, using out's json
// field tags (the config's snake_case names). An absent key leaves out as is.
func decodeKey(r *layers.Resolved, key string, out any) error {
	segs, err := provenance.SplitKey(key)
	if err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	path := strings.Join(segs, layers.Delim)
	if !r.K.Exists(path) {
		return nil
	}
	if err := r.K.UnmarshalWithConf(path, out, koanf.UnmarshalConf{Tag: "json"}); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	return nil
}
