package server_test

import (
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestCompactRoute: POST …/compact summarises between turns and answers
// the compaction (the documented schema), also streamed as an event; with
// nothing left to compact it is a 409.
func TestCompactRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Turn{providertest.Text("a1"), providertest.Text("a2"), providertest.Text("## Task\nchat")})
	id := h.create(nil)
	ch, _ := h.stream(id, nil)
	for _, p := range []string{"one", "two"} {
		h.send(id, p)
		h.until(ch, "done")
	}
	var c map[string]any
	if code := h.do("POST", "/api/session/"+id+"/compact", map[string]string{"focus": "names"}, &c); code != 200 {
		t.Fatalf("compact: %d %v", code, c)
	}
	h.schema.check(t, "Compaction", c)
	if c["reason"] != "manual" || c["summarised"] != float64(1) {
		t.Errorf("compaction %v", c)
	}
	evs := h.until(ch, "compaction")
	h.schema.Check(t, "Event", []byte(evs[len(evs)-1].Data))
	var e map[string]any
	if code := h.do("POST", "/api/session/"+id+"/compact", nil, &e); code != 409 || e["code"] != "nothing_to_compact" {
		t.Errorf("second compact: %d %v", code, e)
	}
}
