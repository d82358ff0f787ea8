package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/agent/session"
)

// reconfigure is the sessions' switch hook: model "refused/…" is refused
// as the requirements would (403); others build a config as the first.
func (h *harness) reconfigure(ctx context.Context, agentName, model string) (agent.Config, error) {
	if strings.HasPrefix(model, "refused/") {
		return agent.Config{}, server.Errorf(http.StatusForbidden, "refused", errors.New("refused by requirements: not in allowed_models"))
	}
	c, err := h.turnConfig(agentName, "")
	if model != "" {
		_, c.Model, _ = strings.Cut(model, "/")
	}
	return c, err
}

// TestSwitchModelAgent: POST …/model and …/agent answer the state with
// the switch; refusals and bad bodies are errors; the state carries the
// modes with their locks.
func TestSwitchModelAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("hi")},
		withLocks(permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by the test's requirements"}}))
	id := h.create(nil)
	base := "/api/session/" + id
	var st map[string]any
	if code := h.do("POST", base+"/model", map[string]string{"model": "openai/other"}, &st); code != 200 || st["model"] != "other" {
		t.Fatalf("set model: %d %v", code, st)
	}
	h.schema.check(t, "State", st)
	modes := st["modes"].([]any)
	if len(modes) != 5 {
		t.Fatalf("modes: %v", modes)
	}
	for _, m := range modes {
		o := m.(map[string]any)
		if locked, _ := o["locked"].(bool); locked != (o["mode"] == "bypassPermissions") {
			t.Errorf("mode option %v", o)
		}
	}
	if code := h.do("POST", base+"/agent", map[string]string{"agent": "plan"}, &st); code != 200 || st["agent"] != "plan" {
		t.Fatalf("set agent: %d %v", code, st)
	}
	var e map[string]any
	for _, c := range []struct {
		path string
		body any
		want int
		code string
	}{
		{"/model", map[string]string{"model": "refused/x"}, 403, "refused"},
		{"/model", map[string]string{"model": ""}, 400, "bad_model"},
		{"/model", map[string]string{"agent": "x"}, 400, "bad_body"},
		{"/agent", map[string]string{"agent": " "}, 400, "bad_agent"},
	} {
		if code := h.do("POST", base+c.path, c.body, &e); code != c.want || e["code"] != c.code {
			t.Errorf("POST %s %v: %d %v, want %d %s", c.path, c.body, code, e, c.want, c.code)
		}
		h.schema.check(t, "Error", e)
	}
	if code := h.do("GET", base, nil, &st); code != 200 || st["model"] != "other" || st["agent"] != "plan" {
		t.Errorf("state after the refusals: %d %v", code, st)
	}
}

// TestListSessionsAndMCP: GET /api/session lists the open sessions and
// the stored ones (the Sessions hook); GET …/mcp the session's servers.
func TestListSessionsAndMCP(t *testing.T) {
	t.Parallel()
	var h *harness
	h = newHarness(t, []providertest.Turn{providertest.Text("hi")}, withConfig(func(c *server.Config) {
		c.Sessions = func(ctx context.Context) ([]session.Session, error) {
			list, err := h.store.List(ctx, session.ListOptions{})
			var out []session.Session
			for _, s := range list {
				out = append(out, *s)
			}
			return out, err
		}
	}))
	a, b := h.create(nil), h.create(nil)
	var got map[string]any
	if code := h.do("GET", "/api/session", nil, &got); code != 200 {
		t.Fatalf("list: %d %v", code, got)
	}
	h.schema.check(t, "Sessions", got)
	open := got["open"].([]any)
	if len(open) != 2 || open[0].(map[string]any)["id"] != a || open[1].(map[string]any)["id"] != b {
		t.Errorf("open = %v", open)
	}
	if stored := got["stored"].([]any); len(stored) != 2 {
		t.Errorf("stored = %v", stored)
	}
	var list map[string]any
	if code := h.do("GET", "/api/session/"+a+"/mcp", nil, &list); code != 200 {
		t.Fatalf("mcp: %d %v", code, list)
	}
	h.schema.check(t, "MCPList", list)
	if s := list["servers"].([]any); len(s) != 0 {
		t.Errorf("servers = %v", s)
	}
}
