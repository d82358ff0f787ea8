package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestAdvice: advice rows keep every field; a label fills only an advice
// still unlabelled (an advice that arrived with its label keeps it); the
// labelled filter and the export see only labelled rows, of one session
// or all; deleting a session deletes its advice.
func TestAdvice(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	id, other := newSession(t, s).ID, newSession(t, s).ID
	at := time.Now().UTC().Truncate(time.Microsecond)
	rows := []Advice{
		{Seq: 4, CallID: "c1", Key: "k1", Command: "touch a", Status: "safe", Mode: "act", Scores: json.RawMessage(`{"destructive":0}`),
			Reasons: []string{}, Cached: true, LatencyMS: 12, Tokens: 300, Acted: true, At: at},
		{Seq: 9, CallID: "c2", Key: "k2", Command: "truncate a", Status: "unsafe", Mode: "shadow", Reasons: []string{"destructive 90 >= 20"},
			Injection: true, Label: "deny", Feedback: "no", At: at.Add(time.Millisecond)},
		{Seq: 11, CallID: "c3", Key: "", Command: "touch b", Status: "timeout", Mode: "act", At: at.Add(2 * time.Millisecond)},
	}
	for _, a := range rows {
		if err := s.AddAdvice(ctx, id, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddAdvice(ctx, "nope", Advice{CallID: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("AddAdvice to an unknown session: %v, want ErrNotFound", err)
	}
	if err := s.AddAdvice(ctx, id, Advice{Seq: 12, Scores: json.RawMessage(`{`)}); err == nil {
		t.Error("AddAdvice with scores that are not JSON: no error")
	}
	if err := s.AddAdvice(ctx, other, Advice{Seq: 1, CallID: "o1", Status: "safe", Mode: "act", Label: "jev", At: at}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ call, label, feedback string }{{"c1", "jev", ""}, {"c2", "once", "overwritten?"}, {"zz", "once", ""}} {
		if err := s.LabelAdvice(ctx, id, l.call, l.label, l.feedback); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Advices(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("advice %+v", got)
	}
	want := rows
	want[0].Label = "jev"
	for i := range want {
		want[i].Session = id
		if want[i].Reasons == nil {
			want[i].Reasons = []string{}
		}
		g, w := got[i], want[i]
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("row %d:\n got %s\nwant %s", i, gj, wj)
		}
	}
	labelled, err := s.Advices(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(labelled) != 3 { // c1, c2 and the other session's o1; not c3
		t.Errorf("labelled advice of all sessions %+v", labelled)
	}
	var buf bytes.Buffer
	if err := s.ExportLabels(ctx, id, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"version":1,"session":"`+id+`","seq":4,`) || !strings.Contains(lines[1], `"label":"deny","feedback":"no"`) {
		t.Errorf("export:\n%s", buf.String())
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Advices(ctx, id, false); err != nil || len(got) != 0 {
		t.Errorf("after delete: %+v, %v", got, err)
	}
}

// TestMigrateFromVersion2: a database at schema version 2 (a session with
// a pending ask) gains the advice table and keeps its asks.
func TestMigrateFromVersion2(t *testing.T) {
	ctx := context.Background()
	s := openFromVersion(t, 2,
		`INSERT INTO sessions (id, agent, model, mode, cwd, status, created_at, updated_at) VALUES ('s1', 'build', 'm', 'default', '/', 'completed', 1, 1)`,
		`INSERT INTO asks (session_id, id, call_id, input_digest, body, status, created_at) VALUES ('s1', 'a1', 'c1', 'sha256:1', '{}', 'pending', 1)`)
	if asks, err := s.Asks(ctx, "s1", true); err != nil || len(asks) != 1 {
		t.Errorf("asks after migration = %+v, %v", asks, err)
	}
	if err := s.AddAdvice(ctx, "s1", Advice{Seq: 1, CallID: "c1", Status: "safe", Mode: "shadow"}); err != nil {
		t.Errorf("advice table after migration: %v", err)
	}
}
