package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// FuzzRequestBodies: whatever body a client sends to a route that reads
// one, the answer is a documented status, an error is JSON matching the
// Error schema, and nothing is a 500.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []struct {
		route uint8
		body  string
	}{
		{0, `{}`}, {0, `{"agent": "build", "permission_mode": "plan"}`}, {0, `{"agent": 1}`}, {0, `{"colour": "blue"}`},
		{1, `{"text": "hi"}`}, {1, `{"text": ""}`}, {1, `{"text": "a"} {"text": "b"}`}, {1, `[`},
		{2, `{"mode": "acceptEdits"}`}, {2, `{"mode": "bypassPermissions"}`}, {2, `{"mode": null}`}, {2, `{"mode": "x", "mode": "plan"}`},
		{3, `{"answer": "once"}`}, {3, `{"answer": "deny", "feedback": "no", "input_digest": "sha256:00"}`}, {3, `{"answer": ""}`},
		{0, "\xff\xfe"}, {1, `{"text": "\u0000"}`},
	} {
		f.Add(seed.route, []byte(seed.body))
	}
	h := newHarness(f, []providertest.Turn{providertest.Text("ok")}, withLoop())
	id := h.create(nil)
	routes := []struct {
		path string
		ok   int
	}{
		{"/api/session", http.StatusOK},
		{"/api/session/" + id + "/message", http.StatusAccepted},
		{"/api/session/" + id + "/permission/mode", http.StatusOK},
		{"/api/session/" + id + "/permission/no-such-ask", http.StatusOK},
	}
	allowed := map[int]bool{400: true, 404: true, 409: true, 413: true, 429: true}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		rt := routes[int(route)%len(routes)]
		req := httptest.NewRequest("POST", rt.path, bytes.NewReader(body))
		req.Host = h.cfg.Addr
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if rec.Code == rt.ok {
			return
		}
		if !allowed[rec.Code] {
			t.Fatalf("POST %s %q: %d %s", rt.path, body, rec.Code, rec.Body.Bytes())
		}
		var e map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
			t.Fatalf("POST %s %q: %d, the error is not JSON: %q", rt.path, body, rec.Code, rec.Body.Bytes())
		}
		h.schema.check(t, "Error", e)
	})
}
