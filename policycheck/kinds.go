package policycheck

import (
	"fmt"
	"strings"

	"github.com/oceancode/oceancode/internal/glob"
	"github.com/oceancode/oceancode/internal/hostrule"
	"github.com/oceancode/oceancode/internal/jsonpos"
)

// Glob reports whether s matches pattern, where * matches any run of
// characters ("/" included) and every other character matches itself
// (internal/glob.Match). It is the matcher of allowed_models and of scopes'
// hostname patterns, for the agent and oceanadmin alike.
func Glob(pattern, s string) bool { return glob.Match(pattern, s) }

// HostMatches reports whether an allowed_providers hosts entry (host,
// *.domain or host:port, the sandbox.allow_hosts syntax) admits host at
// port. An entry without a port admits any port; a wildcard entry admits
// names strictly below its domain, as in the egress proxy.
func HostMatches(entry, host string, port uint16) (bool, error) {
	e, err := hostrule.Parse(entry)
	if err != nil {
		return false, err
	}
	if e.Port != 0 && e.Port != port {
		return false, nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case e.IP.IsValid():
		return strings.Trim(h, "[]") == e.IP.String(), nil
	case e.Wildcard:
		return strings.HasSuffix(h, "."+e.Host), nil
	}
	return h == e.Host, nil
}

// scopePtr is the JSON Pointer of a scope's require block.
const scopePtr = "/scopes/%d/require"

// kinds checks the newer requirement kinds: provider host patterns, a
// pinned model outside allowed_models, and each scope (its rules, its
// hosts, a name used twice, modes disjoint from the policy's own).
func (c *checker) kinds(root map[string]any, pins []pin) {
	c.providerHosts(root, "")
	models := strings1(root["allowed_models"])
	if v, key, ok := pinnedAt(pins, "model"); ok && len(models) > 0 {
		if m, _ := v.(string); m != "" && !anyGlob(models, m) {
			c.add(jsonpos.Pointer("pins", key), KeywordContradiction, "pin %q sets model %s, which allowed_models (%s) excludes: every session would be refused; add it to allowed_models or pin an allowed model", key, m, strings.Join(models, ", "))
		}
	}
	scopes, _ := root["scopes"].([]any)
	names := map[string]int{}
	baseModes := strings1(root["allowed_permission_modes"])
	for i, it := range scopes {
		s, _ := it.(map[string]any)
		if s == nil {
			continue
		}
		if n, _ := s["name"].(string); n != "" {
			if first, dup := names[n]; dup {
				c.add(fmt.Sprintf("/scopes/%d/name", i), KeywordContradiction, "scope %q is listed twice (first at /scopes/%d): inspect could not tell them apart; rename one or merge them", n, first)
			} else {
				names[n] = i
			}
		}
		req, _ := s["require"].(map[string]any)
		if req == nil {
			continue
		}
		prefix := fmt.Sprintf(scopePtr, i)
		c.rulesAt(req, prefix)
		c.providerHosts(req, prefix)
		if modes := strings1(req["allowed_permission_modes"]); len(modes) > 0 && len(baseModes) > 0 {
			common := false
			for _, m := range modes {
				for _, b := range baseModes {
					common = common || m == b
				}
			}
			if !common {
				c.add(prefix+"/allowed_permission_modes", KeywordContradiction, "scope %q allows only %s, none of which the policy's allowed_permission_modes (%s) allows: no session could start on a machine in the scope; keep at least one mode in both", s["name"], strings.Join(modes, ", "), strings.Join(baseModes, ", "))
			}
		}
	}
}

// providerHosts checks each allowed_providers hosts entry under obj.
func (c *checker) providerHosts(obj map[string]any, prefix string) {
	list, _ := obj["allowed_providers"].([]any)
	for i, it := range list {
		e, _ := it.(map[string]any)
		hosts, _ := e["hosts"].([]any)
		for j, h := range hosts {
			s, ok := h.(string)
			if !ok {
				continue
			}
			if err := HostRule(s); err != nil {
				c.add(fmt.Sprintf("%s/allowed_providers/%d/hosts/%d", prefix, i, j), KeywordRule, "allowed_providers host %q: %v: every oceancode refuses it; write a host, *.domain or host:port, e.g. llm.corp.example:443", s, err)
			}
		}
	}
}

func strings1(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, it := range list {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anyGlob(patterns []string, s string) bool {
	for _, p := range patterns {
		if Glob(p, s) {
			return true
		}
	}
	return false
}
