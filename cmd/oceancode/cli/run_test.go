package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// scripted is the turn script the run goldens play: an allowed write, the
// floor, a refused .env read, a sub-agent, then an answer.
func scripted() []providertest.Turn {
	u := &message.Usage{InputTokens: 1000, OutputTokens: 10}
	turns := []providertest.Turn{
		{ToolCalls: []providertest.ToolCall{{ID: "call_1", Name: "write", Input: []byte(`{"path":"notes.txt","content":"hi\n"}`)}}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_2", Name: "bash", Input: []byte(`{"command":"sudo rm -rf /"}`)}}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_3", Name: "read", Input: []byte(`{"path":".env"}`)}}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_4", Name: "task", Input: []byte(`{"agent":"explore","prompt":"list the files"}`)}}},
		{Text: "The project has notes."}, // the sub-agent's answer
		{Text: "Done: wrote notes.txt."},
	}
	for i := range turns {
		turns[i].Usage = u // fixed, so goldens do not depend on path lengths
	}
	return turns
}

var (
	timeRe    = regexp.MustCompile(`"time":"[^"]+"`)
	sessionRe = regexp.MustCompile(`ses_[0-9a-z]+`)
	dateRe    = regexp.MustCompile(`Date: \d{4}-\d{2}-\d{2}`)
)

func runGolden(t *testing.T, format, golden string) *providertest.Server {
	m := layerstest.New(t)
	srv := providertest.New(t, scripted()...)
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/test-model"}`)
	m.TrustProject()
	os.WriteFile(filepath.Join(m.Project, ".env"), []byte("API_KEY=s3cret\n"), 0o644)
	m.Env["OPENAI_API_KEY"] = "sk-test"
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"run", "--format", format, "list and write notes"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	got := out.String()
	got = timeRe.ReplaceAllString(got, `"time":"T"`)
	got = sessionRe.ReplaceAllString(got, "ses_ID")
	got = strings.ReplaceAll(got, m.Root, "$ROOT")
	path := filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("run --format %s differs (-want +got); go test -update if intended:\n%s", format, diff)
	}
	return srv
}

func TestRunStreamJSONGolden(t *testing.T) {
	srv := runGolden(t, "stream-json", "run-stream.golden")
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	// The sub-agent (request 5) is offered the built-in read-only tools of
	// explore only: no write, no bash, never MCP.
	sub := strings.Join(reqs[4].Tools, ",")
	for _, no := range []string{"write", "bash", "edit", "task"} {
		if strings.Contains(","+sub+",", ","+no+",") {
			t.Errorf("the explore sub-agent was offered %s: %s", no, sub)
		}
	}
	if !strings.Contains(sub, "read") {
		t.Errorf("the explore sub-agent was not offered read: %s", sub)
	}
	// No side requests, and the secret never left.
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "s3cret") {
			t.Errorf("request %d carried the .env secret", i+1)
		}
	}
}

func TestRunJSONGolden(t *testing.T) {
	runGolden(t, "json", "run.golden")
}

// TestFirstRequestBudget: the default agent's first request (system prompt
// plus tool definitions) stays under 20 KB: every byte is paid for on every
// request.
func TestFirstRequestBudget(t *testing.T) {
	srv := runGolden(t, "stream-json", "run-stream.golden")
	first := srv.Requests()[0]
	if n := len(first.Body); n > 20*1024 {
		t.Errorf("first request body is %d bytes, budget 20 KiB", n)
	}
	t.Logf("first request body: %d bytes", len(first.Body))
}

// A new session is created while the first model request runs; when it
// cannot be (here the state dir is a file), the run stops with the reason
// and the model's tool call is never carried out.
func TestRunStopsWhenSessionCannotBeRecorded(t *testing.T) {
	m := layerstest.New(t)
	srv := providertest.New(t,
		providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "call_1", Name: "write", Input: []byte(`{"path":"notes.txt","content":"hi\n"}`)}}},
		providertest.Text("done"))
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/test-model"}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	state := filepath.Join(m.Root, "state-is-a-file")
	if err := os.WriteFile(state, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Env["XDG_STATE_HOME"] = state
	app, _, errb := machineApp(t, m)
	code := Main(context.Background(), []string{"run", "--auto", "--trust-project", "write notes"}, app, Options{})
	if code != 1 || !strings.Contains(errb.String(), "open sessions") {
		t.Fatalf("exit %d, want 1 naming the session store:\n%s", code, errb)
	}
	if _, err := os.Stat(filepath.Join(m.Project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the tool ran although the session was never recorded (stat: %v)", err)
	}
}

// TestRunStoresTheStream: every event of a run — text deltas included — is
// in the session store numbered 1, 2, … with exactly the bytes of its
// stream-json line, so a client replaying the store sees what run printed.
func TestRunStoresTheStream(t *testing.T) {
	m := layerstest.New(t)
	srv := providertest.New(t,
		providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "call_1", Name: "write", Input: []byte(`{"path":"notes.txt","content":"<hi>\n"}`)}}},
		providertest.Text("wrote the notes & more"))
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `"}}, "model": "mock/test-model"}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"run", "--auto", "--format", "stream-json", "write notes"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	st, err := session.Open(context.Background(), sessionsDB(app))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 1 || list[0].Status != session.Completed {
		t.Fatalf("sessions = %+v, %v", list, err)
	}
	evs, err := st.Events(context.Background(), list[0].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(lines) {
		t.Fatalf("%d events stored, %d printed", len(evs), len(lines))
	}
	texts := 0
	for i, e := range evs {
		if e.Seq != int64(i+1) || string(e.Data) != lines[i] {
			t.Errorf("event %d: seq %d, stored %s, printed %s", i+1, e.Seq, e.Data, lines[i])
		}
		if e.Type == "text" {
			texts++
		}
	}
	if texts == 0 {
		t.Error("no text delta stored")
	}
}
