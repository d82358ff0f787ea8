package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

func TestCreateGetList(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	meta := Meta{Agent: "plan", Model: "gpt-test", Mode: "acceptEdits", Cwd: "/src/app", Title: "fix the bug"}
	before := time.Now()
	ss, err := s.Create(ctx, meta)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta != meta || got.Status != Running || got.ID != ss.ID {
		t.Errorf("Get = %+v, want meta %+v running", got, meta)
	}
	if got.Created.Before(before.Add(-time.Millisecond)) || !got.Created.Equal(ss.Created) {
		t.Errorf("created %v, want after %v and = %v", got.Created, before, ss.Created)
	}
	if got.Holder == nil || got.Holder.PID != self().pid || got.Holder.Stale {
		t.Errorf("holder %+v, want this process, fresh", got.Holder)
	}

	second := newSession(t, s)
	third := newSession(t, s)
	if err := s.CloseSession(ctx, second.ID, Completed); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    ListOptions
		want []string
	}{
		{"all newest first", ListOptions{}, []string{third.ID, second.ID, ss.ID}},
		{"limit", ListOptions{Limit: 2}, []string{third.ID, second.ID}},
		{"running", ListOptions{Status: Running}, []string{third.ID, ss.ID}},
		{"completed", ListOptions{Status: Completed}, []string{second.ID}},
		{"none failed", ListOptions{Status: Failed}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := s.List(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range list {
				ids = append(ids, l.ID)
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("List(%+v) = %v, want %v", tc.o, ids, tc.want)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const id = "ses_missing"
	var buf bytes.Buffer
	for _, tc := range []struct {
		op  string
		err error
	}{
		{"get", func() error { _, err := s.Get(ctx, id); return err }()},
		{"append message", func() error { _, err := s.AppendMessage(ctx, id, message.UserText("x")); return err }()},
		{"read messages", func() error { _, err := s.Messages(ctx, id); return err }()},
		{"append event", func() error { _, err := s.AppendEvent(ctx, id, Event{Type: "text"}); return err }()},
		{"read events", func() error { _, err := s.Events(ctx, id, 0); return err }()},
		{"add approval", s.AddApproval(ctx, id, Approval{Key: "bash", Pattern: "git *"})},
		{"read approvals", func() error { _, err := s.Approvals(ctx, id); return err }()},
		{"add usage", s.AddUsage(ctx, id, message.Usage{InputTokens: 1})},
		{"close", s.CloseSession(ctx, id, Completed)},
		{"delete", s.Delete(ctx, id)},
		{"claim", func() error { _, err := s.Claim(ctx, id); return err }()},
		{"export", s.Export(ctx, id, &buf)},
	} {
		t.Run(tc.op, func(t *testing.T) {
			if !errors.Is(tc.err, ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", tc.err)
			}
			want := "session: " + tc.op + " " + id + ": session not found"
			if tc.err.Error() != want {
				t.Errorf("error %q, want %q", tc.err, want)
			}
		})
	}
}

// messageCases are messages that must come back exactly as recorded.
var messageCases = []struct {
	name string
	m    message.Message
}{
	{"user text", message.UserText("hello")},
	{"no parts", message.Message{Role: message.Assistant}},
	{"empty parts", message.Message{Role: message.Assistant, Parts: []message.Part{}}},
	{"escapes and unicode", message.UserText("quote \" backslash \\ nl \n tab \t nul \x00 bell \x07 <html> & \u2028 héllo 🌊")},
	{"tool call keeps input bytes", message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.Text, Text: "running"},
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "call_1", Name: "bash", Input: json.RawMessage("{\n  \"command\": \"ls -la\" }")}},
	}}},
	{"tool call input invalid JSON", message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c", Name: "edit", Input: json.RawMessage(`{"path": "a.go", "old`)}},
	}}},
	{"tool call nil input", message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c", Name: "list"}},
	}}},
	{"tool call empty input", message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c", Name: "list", Input: json.RawMessage{}}},
	}}},
	{"tool results", message.Message{Role: message.User, Parts: []message.Part{
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "call_1", Content: "total 0\n"}},
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "call_2", Content: "denied by rule bash(rm *)", IsError: true}},
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "call_3"}},
	}}},
	{"invalid UTF-8 output", message.Message{Role: message.User, Parts: []message.Part{
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "c\xff", Content: "binary \xff\xfe\x00 tail"}},
		{Type: message.Text, Text: "\xc3"},
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: "c", Name: "x", Input: json.RawMessage("\xff")}},
	}}},
	{"empty pointers", message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.ToolUse, ToolCall: &message.ToolCall{}},
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{}},
		{},
	}}},
	{"large", message.UserText(strings.Repeat("0123456789abcdef", 64<<10))},
}

func TestMessagesRoundTrip(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	var want []message.Message
	for i, tc := range messageCases {
		seq, err := s.AppendMessage(ctx, ss.ID, tc.m)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if seq != int64(i+1) {
			t.Errorf("%s: seq %d, want %d", tc.name, seq, i+1)
		}
		want = append(want, tc.m)
	}
	got, err := s.Messages(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d", len(got), len(want))
	}
	for i, tc := range messageCases {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: got\n%#v\nwant\n%#v", tc.name, got[i], want[i])
		}
	}
	// A session with nothing recorded yet is empty, not missing.
	empty := newSession(t, s)
	if ms, err := s.Messages(ctx, empty.ID); err != nil || len(ms) != 0 {
		t.Errorf("empty session: %v, %v", ms, err)
	}
	if g, _ := s.Get(ctx, ss.ID); g.Messages != int64(len(messageCases)) || !g.Updated.After(g.Created) {
		t.Errorf("Get after appends: messages %d updated %v created %v", g.Messages, g.Updated, g.Created)
	}
}

func TestStoredFormReadsLikeMessageJSON(t *testing.T) {
	// For the common message (valid UTF-8, no tool input) the stored form
	// is exactly message.Message's JSON.
	m := message.Message{Role: message.User, Parts: []message.Part{
		{Type: message.Text, Text: "hi <b>"},
		{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: "c1", Content: "ok\n", IsError: true}},
	}}
	std, _ := json.Marshal(m)
	var a, b any
	json.Unmarshal(std, &a)
	if err := json.Unmarshal(appendMessage(nil, m), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("stored %s, message JSON %s", appendMessage(nil, m), std)
	}
}

func TestConcurrentAppendsInOneProcess(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	const workers, each = 8, 25
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seqs = map[int64]bool{}
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				seq, err := s.AppendMessage(ctx, ss.ID, message.UserText("x"))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seqs[seq] {
					t.Errorf("seq %d twice", seq)
				}
				seqs[seq] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seqs) != workers*each {
		t.Errorf("%d distinct seqs, want %d", len(seqs), workers*each)
	}
}

func TestEvents(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)
	in := []Event{
		{Type: "text", Data: json.RawMessage(`{"text": "hi"}`), At: at},
		{Type: "permission.decided", Data: json.RawMessage(`{"action":"deny","rule":"bash(rm -rf /)","origin":"floor"}`), At: at.Add(time.Second)},
		{Type: "mode.changed", At: at.Add(2 * time.Second)}, // no data
		{Type: "usage"}, // At defaults to now
	}
	for i, e := range in {
		seq, err := s.AppendEvent(ctx, ss.ID, e)
		if err != nil {
			t.Fatal(err)
		}
		if seq != int64(i+1) {
			t.Errorf("seq %d, want %d", seq, i+1)
		}
	}
	for _, tc := range []struct {
		after int64
		want  []int64
	}{{0, []int64{1, 2, 3, 4}}, {2, []int64{3, 4}}, {4, nil}, {99, nil}} {
		got, err := s.Events(ctx, ss.ID, tc.after)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int64
		for _, e := range got {
			seqs = append(seqs, e.Seq)
			w := in[e.Seq-1]
			if e.Type != w.Type || !bytes.Equal(e.Data, w.Data) || (e.Data == nil) != (w.Data == nil) {
				t.Errorf("event %d = %+v, want %+v", e.Seq, e, w)
			}
			if !w.At.IsZero() && !e.At.Equal(w.At) {
				t.Errorf("event %d at %v, want %v", e.Seq, e.At, w.At)
			}
			if w.At.IsZero() && time.Since(e.At) > time.Minute {
				t.Errorf("event %d at %v, want about now", e.Seq, e.At)
			}
		}
		if !reflect.DeepEqual(seqs, tc.want) {
			t.Errorf("Events(after %d) seqs %v, want %v", tc.after, seqs, tc.want)
		}
	}
	for _, bad := range []Event{{Type: ""}, {Type: "x", Data: json.RawMessage(`{oops`)}, {Type: "x", Data: json.RawMessage{}}} {
		if _, err := s.AppendEvent(ctx, ss.ID, bad); err == nil || !strings.HasPrefix(err.Error(), "session: append event "+ss.ID+": ") {
			t.Errorf("AppendEvent(%+v) err = %v", bad, err)
		}
	}
}

func TestApprovalsAndUsage(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	aps := []Approval{
		{Key: "bash", Pattern: "git status*"},
		{Key: "edit", Pattern: "src/**"},
		{Key: "mcp__github__create_issue", Pattern: "*", Server: "github"},
		{Key: "bash", Pattern: "git status*"}, // again: kept once
	}
	for _, a := range aps {
		if err := s.AddApproval(ctx, ss.ID, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Approvals(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, aps[:3]) {
		t.Errorf("Approvals = %+v, want %+v", got, aps[:3])
	}
	if got, err := s.Approvals(ctx, newSession(t, s).ID); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no approvals: %v %v", got, err)
	}

	for _, u := range []message.Usage{{InputTokens: 100, OutputTokens: 20}, {InputTokens: 5, OutputTokens: 1, CacheReadTokens: 90, CacheWriteTokens: 7}} {
		if err := s.AddUsage(ctx, ss.ID, u); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (message.Usage{InputTokens: 105, OutputTokens: 21, CacheReadTokens: 90, CacheWriteTokens: 7}); g.Usage != want {
		t.Errorf("usage %+v, want %+v", g.Usage, want)
	}
}

func TestCloseAndDelete(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	s.AppendMessage(ctx, ss.ID, message.UserText("x"))
	s.AppendEvent(ctx, ss.ID, Event{Type: "text"})
	s.AddApproval(ctx, ss.ID, Approval{Key: "read", Pattern: "*"})

	for _, tc := range []struct {
		st      Status
		wantErr bool
	}{{Running, true}, {"done", true}, {Interrupted, false}, {Failed, false}, {Completed, false}} {
		err := s.CloseSession(ctx, ss.ID, tc.st)
		if (err != nil) != tc.wantErr {
			t.Errorf("CloseSession(%q) err = %v, want error %v", tc.st, err, tc.wantErr)
		}
	}
	g, _ := s.Get(ctx, ss.ID)
	if g.Status != Completed || g.Closed.IsZero() || g.Holder != nil {
		t.Errorf("after close: %+v", g)
	}

	if err := s.Delete(ctx, ss.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, ss.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after delete: %v", err)
	}
	for _, table := range []string{"messages", "events", "approvals"} {
		var n int
		s.db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE session_id = ?", table), ss.ID).Scan(&n)
		if n != 0 {
			t.Errorf("%d rows left in %s: delete must cascade", n, table)
		}
	}
}

func TestExport(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	for _, tc := range messageCases[:6] {
		if _, err := s.AppendMessage(ctx, ss.ID, tc.m); err != nil {
			t.Fatal(err)
		}
	}
	s.AppendEvent(ctx, ss.ID, Event{Type: "text", Data: json.RawMessage(`{"text":"hi"}`)})
	s.AddApproval(ctx, ss.ID, Approval{Key: "bash", Pattern: "go test*"})
	s.AddUsage(ctx, ss.ID, message.Usage{InputTokens: 10, OutputTokens: 2})

	var buf bytes.Buffer
	if err := s.Export(ctx, ss.ID, &buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format   string `json:"format"`
		Version  int    `json:"version"`
		Session  Session
		Usage    message.Usage
		Messages []struct {
			Seq     int64
			Message json.RawMessage
		}
		Events    []Event
		Approvals []Approval
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, buf.Bytes())
	}
	if doc.Format != ExportFormat || doc.Version != ExportVersion {
		t.Errorf("format %q version %d", doc.Format, doc.Version)
	}
	if doc.Session.ID != ss.ID || doc.Session.Agent != "build" || doc.Usage.InputTokens != 10 || doc.Session.Usage != doc.Usage {
		t.Errorf("session %+v usage %+v", doc.Session, doc.Usage)
	}
	if len(doc.Messages) != 6 || len(doc.Events) != 1 || len(doc.Approvals) != 1 {
		t.Fatalf("messages %d events %d approvals %d", len(doc.Messages), len(doc.Events), len(doc.Approvals))
	}
	for i, em := range doc.Messages {
		m, err := decodeMessage(em.Message)
		if err != nil {
			t.Fatal(err)
		}
		if em.Seq != int64(i+1) || !reflect.DeepEqual(m, messageCases[i].m) {
			t.Errorf("exported message %d = %#v, want %#v", em.Seq, m, messageCases[i].m)
		}
	}
	var compact bytes.Buffer
	json.Compact(&compact, doc.Events[0].Data)
	if compact.String() != `{"text":"hi"}` {
		t.Errorf("event data %s", doc.Events[0].Data)
	}
}
