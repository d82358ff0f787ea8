//go:build unix

package clitest

import (
	"strings"
	"syscall"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestServeResumeKeepsModel: a session created on a model that is not the
// configuration's default (another provider, another model name) is
// resumed after the server restarts on that model, not the default: the
// record keeps PROVIDER/MODEL and the session factory takes it up.
func TestServeResumeKeepsModel(t *testing.T) {
	t.Parallel()
	def := providertest.New(t, providertest.Text("the default model must not be asked"))
	other := providertest.New(t,
		providertest.Call("bash", map[string]string{"command": "echo kept"}),
		providertest.Text("finished on the session's model"),
	)
	m := layerstest.New(t)
	m.ProjectConfig(`{"model": "mock/default", "permission": {"bash": {"echo *": "ask"}}, "provider": {` +
		`"mock": {"type": "openai", "base_url": "` + def.OpenAIURL() + `"}, ` +
		`"other": {"type": "openai", "base_url": "` + other.OpenAIURL() + `"}}}`)
	m.TrustProject()
	s := startServe(t, m)
	id := s.create(map[string]any{"model": "other/x", "permission_mode": "acceptEdits"})
	s.send(id, "run it")
	ask := s.pending(id)
	s.kill(syscall.SIGKILL)

	s2 := startServe(t, m)
	if !strings.Contains(s2.stderr.String(), "resumed session "+id) {
		t.Fatalf("the restart does not say it resumed %s:\n%s", id, s2.stderr.String())
	}
	st := s2.call("GET", "/api/session/"+id, nil, 200, "State")
	if st["model"] != "x" {
		t.Errorf("the resumed session's model is %v, want x (other/x)", st["model"])
	}
	if mode := st["mode"].(map[string]any); mode["mode"] != "acceptEdits" {
		t.Errorf("the resumed session's mode is %v, want acceptEdits", mode)
	}
	ch, _ := s2.events(id, 0)
	s2.answer(id, ask["id"].(string), map[string]string{"answer": "once", "input_digest": ask["input_digest"].(string)}, 200)
	s2.until(ch, "done", 1)
	reqs := other.Requests()
	if len(reqs) != 2 || reqs[1].Model != "x" {
		var got []string
		for _, r := range reqs {
			got = append(got, r.Model)
		}
		t.Errorf("requests to other/x: %v, want the first turn's and the resumed one's, both model x", got)
	}
	if n := len(def.Requests()); n != 0 {
		t.Errorf("the default model (mock/default) got %d request(s) after the resume, want 0", n)
	}
	list := s2.call("GET", "/api/session", nil, 200, "Sessions")
	for _, x := range list["stored"].([]any) {
		if rec := x.(map[string]any); rec["id"] == id && rec["model"] != "other/x" {
			t.Errorf("the stored record's model is %v, want other/x", rec["model"])
		}
	}
}
