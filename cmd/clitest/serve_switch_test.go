//go:build unix

package clitest

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestServeSwitches: the real `oceancode serve` switches a session's model
// through the requirements' allowed_models (a refused one is 403 and
// changes nothing) and its agent (an unknown one is 400); the state shows
// the modes with their locks, the sandbox and the signed policy; the next
// turn runs on the new model; GET /api/session lists the session.
func TestServeSwitches(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("first"), providertest.Text("second"))
	m := layerstest.New(t)
	m.ProjectConfig(`{"model": "mock/m", "provider": {"mock": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}, "other": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}}}`)
	m.TrustProject()
	m.Anchor()
	m.Requirements(1, map[string]any{"disable_bypass_permissions": true, "allowed_models": []any{"mock/*"}})
	s := startServe(t, m)
	id := s.create(nil)
	st := s.call("GET", "/api/session/"+id, nil, 200, "State")
	if st["policy"] != "signed, serial 1" || st["sandbox"] == "" {
		t.Errorf("state: policy %v, sandbox %v", st["policy"], st["sandbox"])
	}
	modes := st["modes"].([]any)
	if last := modes[4].(map[string]any); last["mode"] != "bypassPermissions" || last["locked"] != true || !strings.Contains(last["reason"].(string), "locked out by requirements") {
		t.Errorf("modes: %v", modes)
	}
	ch, _ := s.events(id, -1)
	s.send(id, "one")
	s.until(ch, "done", 1)
	e := s.call("POST", "/api/session/"+id+"/model", map[string]string{"model": "other/x"}, 403, "Error")
	if e["code"] != "refused" || !strings.Contains(e["error"].(string), "allowed_models") {
		t.Errorf("a refused model: %v", e)
	}
	if st = s.call("POST", "/api/session/"+id+"/model", map[string]string{"model": "mock/m2"}, 200, "State"); st["model"] != "m2" {
		t.Errorf("set model: %v", st)
	}
	if st = s.call("POST", "/api/session/"+id+"/agent", map[string]string{"agent": "plan"}, 200, "State"); st["agent"] != "plan" {
		t.Errorf("set agent: %v", st)
	}
	if e = s.call("POST", "/api/session/"+id+"/agent", map[string]string{"agent": "nobody"}, 400, "Error"); !strings.Contains(e["error"].(string), `agent "nobody": no such agent`) {
		t.Errorf("an unknown agent: %v", e)
	}
	s.send(id, "two")
	s.until(ch, "done", 1)
	reqs := model.Requests()
	if got := reqs[len(reqs)-1].Model; got != "m2" {
		t.Errorf("the next turn's model: %q", got)
	}
	list := s.call("GET", "/api/session", nil, 200, "Sessions")
	if open := list["open"].([]any); len(open) != 1 || open[0].(map[string]any)["id"] != id {
		t.Errorf("open sessions: %v", open)
	}
	if stored := list["stored"].([]any); len(stored) != 1 {
		t.Errorf("stored sessions: %v", stored)
	}
	mcp := s.call("GET", "/api/session/"+id+"/mcp", nil, 200, "MCPList")
	if servers := mcp["servers"].([]any); len(servers) != 0 {
		t.Errorf("mcp: %v", servers)
	}
}
