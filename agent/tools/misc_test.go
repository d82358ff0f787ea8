package tools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWebFetch(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>T &amp; co</title><style>body{color:red}</style>
<script>alert("x<y>")</script></head><body><!-- hidden --><h1>Title</h1>
<p>Hello <b>bold</b> world &lt;3</p><ul><li>one</li><li>two</li></ul>
<SCRIPT type="x">evil()</SCRIPT><pre>a  b
  c</pre><a href="/x" title="a>b">link</a></body></html>`))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"a":1}`))
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("z", MaxFetchSize+100)))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", 404) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/json", 302) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	env := testEnv(t)
	env.HTTPClient = srv.Client()

	r := mustOK(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/page"}))
	want := "T & co\n\n# Title\n\nHello bold world <3\n\n- one\n- two\n\na  b\n  c\nlink"
	if r.Content != want {
		t.Errorf("html =\n%q\nwant\n%q", r.Content, want)
	}
	if r := mustOK(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/json"})); r.Content != `{"a":1}` {
		t.Errorf("json = %q", r.Content)
	}
	if r := mustOK(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/png"})); !strings.Contains(r.Content, "image/png content (6 bytes); not shown") {
		t.Errorf("png = %q", r.Content)
	}
	r = mustOK(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/big"}))
	if r.Meta["bytes"] != MaxFetchSize || r.Meta["truncated"] != true || len(r.Content) > DefaultOutputLimit+100 {
		t.Errorf("big: %v, %d bytes", r.Meta, len(r.Content))
	}
	if r := mustErr(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/missing"})); !strings.Contains(r.Content, "HTTP 404") {
		t.Errorf("404 = %q", r.Content)
	}
	if r := mustOK(t, run(t, WebFetchTool{}, env, obj{"url": srv.URL + "/redirect"})); !strings.HasPrefix(r.Content, "(redirected to "+srv.URL+"/json)") {
		t.Errorf("redirect = %q", r.Content)
	}
	mustErr(t, run(t, WebFetchTool{}, env, obj{"url": "http://user:pw@example.com/"}))
	mustErr(t, run(t, WebFetchTool{}, env, obj{"url": "/relative"}))
}

func TestHTMLTextHostile(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"<", "<script>", "<a href='>", "<!--", strings.Repeat("<script>", 10000), strings.Repeat("<b x=\"", 1000), "a<b>c"} {
		htmlText(s) // must not panic or hang
	}
	if got := htmlText("a <i>b</i> c"); got != "a b c" {
		t.Errorf("inline spacing: %q", got)
	}
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r := mustErr(t, run(t, QuestionTool{}, env, obj{"question": "Which DB?"}))
	if !strings.Contains(r.Content, "No user can answer") {
		t.Errorf("headless = %q", r.Content)
	}
	var asked Question
	env.Ask = func(ctx context.Context, q Question) (string, error) { asked = q; return "postgres", nil }
	r = mustOK(t, run(t, QuestionTool{}, env, obj{"question": "Which DB?", "options": []string{"postgres", "sqlite"}}))
	if r.Content != "The user answered: postgres" || asked.Text != "Which DB?" || len(asked.Options) != 2 {
		t.Errorf("answer = %q, asked %+v", r.Content, asked)
	}
	env.Ask = func(ctx context.Context, q Question) (string, error) { return "", errors.New("aborted") }
	mustErr(t, run(t, QuestionTool{}, env, obj{"question": "q"}))
}

func TestTodo(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	items := []Todo{{"write tests", "done"}, {"fix bug", "in_progress"}, {"docs", "pending"}}
	r := mustOK(t, run(t, TodoTool{}, env, obj{"todos": items}))
	if r.Content != "[x] write tests\n[~] fix bug\n[ ] docs\n(1/3 done)" {
		t.Errorf("todo = %q", r.Content)
	}
	if diff := cmp.Diff(items, env.Todos.Items()); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if r := mustOK(t, run(t, TodoTool{}, env, obj{"todos": []Todo{}})); r.Content != "todo list cleared" {
		t.Errorf("clear = %q", r.Content)
	}
	env.Todos = nil
	mustErr(t, run(t, TodoTool{}, env, obj{"todos": items}))
}

func TestTask(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r := mustErr(t, run(t, TaskTool{}, env, obj{"prompt": "find x"}))
	if r.Content != "sub-agents are not available here" {
		t.Errorf("no Task = %q", r.Content)
	}
	env.Task = func(ctx context.Context, agent, prompt string) (string, error) { return agent + ": " + prompt, nil }
	if r := mustOK(t, run(t, TaskTool{}, env, obj{"agent": "explore", "prompt": "find x"})); r.Content != "explore: find x" {
		t.Errorf("task = %q", r.Content)
	}
}
