package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/server/servertest"
)

func newClient(t *testing.T, l *servertest.Live) *client.Client {
	t.Helper()
	c, err := client.New(l.URL, l.Token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestResumeAfterCut: the server cuts every connection in the middle of a
// streamed answer; the stream resumes with Last-Event-ID and delivers
// exactly the session's events, in order, none lost or repeated, the same
// bytes as an in-process subscriber gets.
func TestResumeAfterCut(t *testing.T) {
	l := servertest.NewLive(t, servertest.LiveOptions{Turns: []providertest.Turn{
		{Text: "one two three four five six seven eight", Delay: providertest.Duration(200 * time.Millisecond)},
		providertest.Text("second answer"),
	}})
	c := newClient(t, l)
	ctx := context.Background()
	st, err := c.Create(ctx, client.CreateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(ctx, st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := c.Send(ctx, st.ID, "first"); err != nil {
		t.Fatal(err)
	}
	got := servertest.Until(t, s.Events(), s.Err, agent.EventText)
	// The model stalls after its first delta: cut the stream there.
	l.TS.CloseClientConnections()
	got = append(got, servertest.Until(t, s.Events(), s.Err, agent.EventDone)...)
	if _, err := c.Send(ctx, st.ID, "second"); err != nil {
		t.Fatal(err)
	}
	l.TS.CloseClientConnections()
	got = append(got, servertest.Until(t, s.Events(), s.Err, agent.EventDone)...)
	if s.Resumed() < 1 {
		t.Errorf("resumed %d times", s.Resumed())
	}
	local, err := l.Session(st.ID).Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	for i, ev := range got {
		want := <-local.C()
		if ev.Seq != int64(i+1) || ev.Seq != want.Seq || string(ev.Data) != string(want.Data) || ev.Event.Type != want.Event.Type {
			t.Fatalf("event %d: seq %d %s %s, want seq %d %s", i, ev.Seq, ev.Event.Type, ev.Data, want.Seq, want.Data)
		}
	}
}

// TestResyncAndErrors: a cursor past the session's events gets a resync
// event (then the stream goes on live); a refused token, an unknown
// session and a closed session are the errors they stand for.
func TestResyncAndErrors(t *testing.T) {
	l := servertest.NewLive(t, servertest.LiveOptions{Turns: []providertest.Turn{providertest.Text("hi")}})
	c := newClient(t, l)
	ctx := context.Background()
	st, err := c.Create(ctx, client.CreateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(ctx, st.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c.Send(ctx, st.ID, "go")
	evs := servertest.Until(t, s.Events(), s.Err, agent.EventDone)
	if evs[0].Event.Type != client.EventResync || evs[0].Seq != 0 || !strings.Contains(evs[0].Event.Text, "past this session's last event") {
		t.Errorf("first event = %+v", evs[0])
	}
	if evs[1].Seq != 1 {
		t.Errorf("after the resync: seq %d", evs[1].Seq)
	}

	if m, err := c.Mode(ctx, st.ID); err != nil || m.Mode != "default" || m.Requested != "default" {
		t.Errorf("mode = %+v, %v", m, err)
	}
	// The state reads back into the engine's State: what the session says
	// of itself, its mode locks and status lines included.
	if got, err := c.State(ctx, st.ID); err != nil {
		t.Errorf("state: %v", err)
	} else if want := l.Session(st.ID).State(); got.ID != st.ID || got.Agent != want.Agent || got.Model != want.Model || got.Mode.Mode != want.Mode.Mode ||
		len(got.Modes) == 0 || !reflect.DeepEqual(got.Modes, want.Modes) || got.Sandbox != "off" || got.Policy != "none" || got.Turns != want.Turns {
		t.Errorf("state = %+v, want %+v", got, want)
	}
	if doc, err := c.OpenAPI(ctx); err != nil || !strings.Contains(string(doc), `"openapi": "3.1.0"`) {
		t.Errorf("openapi: %.40s, %v", doc, err)
	}
	if open, stored, err := c.Sessions(ctx); err != nil || len(open) != 1 || open[0].ID != st.ID || len(stored) != 1 {
		t.Errorf("sessions = %+v %+v, %v", open, stored, err)
	}

	bad, _ := client.New(l.URL, l.Token+"x")
	if _, err := bad.State(ctx, st.ID); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := bad.Events(ctx, st.ID, 0); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("wrong token, events: %v", err)
	}
	var ce *client.Error
	if _, err := c.State(ctx, "ses_none"); !errors.As(err, &ce) || ce.Status != 404 || ce.Code != "no_session" {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := client.New("localhost:4096", "t"); err == nil {
		t.Error("an address without a scheme: no error")
	}
	if _, err := client.New(l.URL, ""); err == nil {
		t.Error("no token: no error")
	}
	// The session closes: the stream ends without an error.
	l.Session(st.ID).Close()
	select {
	case _, ok := <-s.Events():
		for ok {
			_, ok = <-s.Events()
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream did not end with the session")
	}
	if err := s.Err(); err != nil {
		t.Errorf("after the session closed: %v", err)
	}
	if _, err := c.Send(ctx, st.ID, "more"); !errors.Is(err, runner.ErrClosed) {
		t.Errorf("send to a closed session: %v", err)
	}
}

// TestLaggedNotice: the server's lagged notice ends the stream with
// runner.ErrLagged (subscribe again after the last Seq). The server side is
// a plain handler writing the notice as agent/server does (forcing a real
// lag needs a reader that stops for megabytes; agent/server's own tests do).
func TestLaggedNotice(t *testing.T) {
	l := servertest.NewLive(t, servertest.LiveOptions{})
	proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+l.Token || r.Header.Get("Last-Event-ID") != "" {
			http.Error(w, `{"error":"no","code":"bad_cursor"}`, 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": stream\n\nid: 1\ndata: {\"type\":\"text\",\"time\":\"2026-12-01T10:00:00Z\",\n"+
			"data: \"text\":\"a\"}\n\ndata: {\"type\":\"lagged\",\"last_seq\":1,\"text\":\"fell behind\"}\n\n")
	})
	l.TS.Config.Handler = proxy
	c := newClient(t, l)
	s, err := c.Events(context.Background(), "ses_x", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, ok := <-s.Events()
	if !ok || ev.Seq != 1 || ev.Event.Text != "a" || string(ev.Data) != "{\"type\":\"text\",\"time\":\"2026-12-01T10:00:00Z\",\n\"text\":\"a\"}" {
		t.Fatalf("event = %+v %q, %v", ev, ev.Data, ok)
	}
	if _, ok := <-s.Events(); ok {
		t.Fatal("the stream goes on after lagged")
	}
	if !errors.Is(s.Err(), runner.ErrLagged) {
		t.Errorf("err = %v", s.Err())
	}
}
