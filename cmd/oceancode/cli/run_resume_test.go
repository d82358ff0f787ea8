package cli

import (
	"context"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestRunSessionKeepsModel: `run --session ID` continues on the model and
// mode the session was started with (another provider than the
// configuration's default), not on the default; a --model given with
// --session wins and is recorded for the next resume.
func TestRunSessionKeepsModel(t *testing.T) {
	def := providertest.New(t, providertest.Text("on the default, as asked"))
	other := providertest.New(t, providertest.Text("first"), providertest.Text("second"))
	m := layerstest.New(t)
	m.ProjectConfig(`{"model": "mock/default", "provider": {` +
		`"mock": {"type": "openai", "base_url": "` + def.OpenAIURL() + `"}, ` +
		`"other": {"type": "openai", "base_url": "` + other.OpenAIURL() + `"}}}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	run := func(args ...string) {
		t.Helper()
		app, _, errb := machineApp(t, m)
		if code := Main(context.Background(), append([]string{"run"}, args...), app, Options{}); code != 0 {
			t.Fatalf("run %v: exit %d\n%s", args, code, errb)
		}
	}
	run("--model", "other/x", "--permission-mode", "acceptEdits", "one")
	rec := onlySession(t, m)
	if rec.Model != "other/x" || rec.Mode != "acceptEdits" {
		t.Fatalf("the record keeps model %q mode %q, want other/x and acceptEdits", rec.Model, rec.Mode)
	}

	run("--session", rec.ID, "two")
	if reqs := other.Requests(); len(reqs) != 2 || reqs[1].Model != "x" {
		t.Errorf("other/x got %d request(s), want 2 (the resume's on model x)", len(reqs))
	}
	if n := len(def.Requests()); n != 0 {
		t.Errorf("the default model got %d request(s) from the resumed run, want 0", n)
	}
	if got := onlySession(t, m); got.Mode != "acceptEdits" || got.Model != "other/x" {
		t.Errorf("after the resume the record keeps model %q mode %q", got.Model, got.Mode)
	}

	run("--session", rec.ID, "--model", "mock/default", "three")
	if n := len(def.Requests()); n != 1 {
		t.Errorf("--model mock/default with --session: the default got %d request(s), want 1", n)
	}
	if got := onlySession(t, m); got.Model != "mock/default" {
		t.Errorf("the record keeps model %q after --model mock/default, want it recorded", got.Model)
	}
}

// onlySession is the machine's one stored session.
func onlySession(t *testing.T, m *layerstest.Machine) *session.Session {
	t.Helper()
	app, _, _ := machineApp(t, m)
	st, err := session.Open(context.Background(), sessionsDB(app))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("stored sessions: %d, %v; want 1", len(list), err)
	}
	return list[0]
}
