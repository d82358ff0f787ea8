package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/session"
)

func bash(cmd string) providertest.Turn {
	return providertest.Call("bash", map[string]string{"command": cmd})
}

// TestTurnsInOrder: prompts sent at once run one after another on one
// conversation; every event is numbered 1, 2, … and stored with its number
// and its bytes; the record's status derives from the stop reason.
func TestTurnsInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("one"), providertest.Text("two sekrit"), providertest.Text("three"))
	s := f.start(f.options())
	u, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"first", "second"} {
		if err := s.Send(p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Run(context.Background(), "third")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 6 || res.Messages[5].TextOf() != "three" || res.Messages[2].TextOf() != "second" {
		t.Fatalf("conversation = %+v", res.Messages)
	}
	// The second request carried the first turn.
	if reqs := f.srv.Requests(); len(reqs) != 3 || len(reqs[1].Messages) != 3 || len(reqs[2].Messages) != 5 {
		t.Fatalf("requests: %d", len(reqs))
	}
	var live []runner.Event
	for done := 0; done < 3; {
		ev := next(t, u)
		live = append(live, ev)
		if ev.Event.Type == agent.EventDone {
			done++
		}
	}
	for i, ev := range live {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has Seq %d", i, ev.Seq)
		}
		if ev.Event.Type == agent.EventText && strings.Contains(string(ev.Data), "sekrit") {
			t.Errorf("event %d: its data is not redacted: %s", ev.Seq, ev.Data)
		}
	}
	if st := s.State(); st.Status != runner.StatusIdle || st.Turns != 3 || st.LastSeq != int64(len(live)) || st.StopReason != runner.StopEndTurn {
		t.Errorf("state = %+v", st)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-u.C(); ok || !errors.Is(u.Err(), runner.ErrClosed) {
		t.Errorf("subscription after Close: err %v", u.Err())
	}
	stored, err := f.store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(live) {
		t.Fatalf("%d events stored, %d emitted", len(stored), len(live))
	}
	for i := range stored {
		if stored[i].Seq != live[i].Seq || string(stored[i].Data) != string(live[i].Data) || stored[i].Type != string(live[i].Event.Type) {
			t.Errorf("stored event %d = %d %s %s, emitted %d %s", i, stored[i].Seq, stored[i].Type, stored[i].Data, live[i].Seq, live[i].Data)
		}
	}
	ms, err := f.store.Messages(context.Background(), id)
	if err != nil || len(ms) != 6 || strings.Contains(ms[3].TextOf(), "sekrit") {
		t.Errorf("stored messages = %+v, %v", ms, err)
	}
	rec, err := f.store.Get(context.Background(), id)
	if err != nil || rec.Status != session.Completed || rec.Holder != nil {
		t.Errorf("record = %+v, %v", rec, err)
	}
	if err := s.Send("late"); !errors.Is(err, runner.ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
}

// TestAskAnswers: an ask becomes a pending ask and an ask event; the first
// answer wins, a resolved event goes to every subscriber, and the model
// reads a deny's feedback in the tool result.
func TestAskAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo one > one.txt"), bash("echo two > two.txt"), bash("echo three > three.txt"), providertest.Text("done"))
	s := f.start(f.options())
	u1, _ := s.Subscribe(0)
	u2, _ := s.Subscribe(0)
	if err := s.Send("go"); err != nil {
		t.Fatal(err)
	}
	answer := func(want string, r runner.Reply) runner.PendingAsk {
		t.Helper()
		evs := until(t, u1, agent.EventAsk)
		a := evs[len(evs)-1].Event.Ask
		if a.Kind != runner.KindPermission || a.Tool != "bash" || a.Target != want || a.InputDigest != agent.InputDigest(a.Input) ||
			a.Decision == nil || a.Decision.Rule != "Bash(*) ask" || strings.Join(a.Choices, ",") != "once,always,deny" {
			t.Fatalf("ask = %+v", a)
		}
		if p := s.Pending(); len(p) != 1 || p[0].ID != a.ID {
			t.Fatalf("pending = %+v", p)
		}
		if st := s.State(); st.Status != runner.StatusWaiting {
			t.Errorf("state while asking: %s", st.Status)
		}
		if err := s.Answer(a.ID, runner.Reply{Answer: "maybe"}); !errors.Is(err, runner.ErrAnswer) {
			t.Errorf("answer maybe: %v", err)
		}
		if err := s.Answer(a.ID, runner.Reply{Answer: agent.Once, Digest: "sha256:00"}); !errors.Is(err, runner.ErrDigest) {
			t.Errorf("answer with a wrong digest: %v", err)
		}
		r.Digest = a.InputDigest
		if err := s.Answer(a.ID, r); err != nil {
			t.Fatal(err)
		}
		var ae *runner.AnsweredError
		if err := s.Answer(a.ID, runner.Reply{Answer: agent.Once, By: "late"}); !errors.As(err, &ae) || ae.First.Answer != r.Answer || ae.First.By != r.By {
			t.Errorf("second answer: %v", err)
		}
		evs = until(t, u2, agent.EventResolved)
		if e := evs[len(evs)-1].Event; e.AskID != a.ID || e.Answer != string(r.Answer) || e.By != r.By || e.Feedback != r.Feedback {
			t.Errorf("resolved = %+v", e)
		}
		return *a
	}
	answer("echo one > one.txt", runner.Reply{Answer: agent.Once, By: "alice"})
	answer("echo two > two.txt", runner.Reply{Answer: agent.Deny, Feedback: "write three instead", By: "bob"})
	answer("echo three > three.txt", runner.Reply{Answer: agent.Always, By: "alice"})
	until(t, u1, agent.EventDone)
	if err := s.Answer("ask_nope", runner.Reply{Answer: agent.Once}); !errors.Is(err, runner.ErrNoAsk) {
		t.Errorf("unknown ask: %v", err)
	}
	reqs := f.srv.Requests()
	second := reqs[2].Messages[len(reqs[2].Messages)-1].Parts[0].ToolResult
	if !second.IsError || !strings.Contains(second.Content, "write three instead") {
		t.Errorf("the deny's result = %+v", second)
	}
	for name, want := range map[string]bool{"one.txt": true, "two.txt": false, "three.txt": true} {
		if _, err := os.Stat(filepath.Join(f.dir, name)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", name, err == nil, want)
		}
	}
	id := s.ID()
	s.Close()
	aps, err := f.store.Approvals(context.Background(), id)
	if err != nil || len(aps) != 1 || aps[0].Pattern != "echo three" {
		t.Errorf("stored approvals = %+v, %v", aps, err)
	}
	asks, err := f.store.Asks(context.Background(), id, false)
	if err != nil || len(asks) != 3 || asks[1].Answer != "deny" || asks[1].Feedback != "write three instead" || asks[1].By != "bob" {
		t.Errorf("stored asks = %+v, %v", asks, err)
	}
}

// TestHeadless: without Interactive an ask is refused with the rule that
// would approve it (Auto approves it), and the question tool says no one
// can answer.
func TestHeadless(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo x > x.txt"), providertest.Call("question", map[string]string{"question": "which?"}), providertest.Text("done"))
	o := f.options()
	o.Interactive = false
	s := f.start(o)
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Denied != 1 {
		t.Errorf("denied = %d", res.Denied)
	}
	if got := lastResult(t, f.srv); !strings.Contains(got, "No user can answer") {
		t.Errorf("question result = %q", got)
	}
}

// TestQuestion: the question tool's ask goes through the broker; the
// answer reaches the model.
func TestQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Call("question", map[string]any{"question": "which db?", "options": []string{"sqlite", "postgres"}}), providertest.Text("done"))
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	evs := until(t, u, agent.EventAsk)
	a := evs[len(evs)-1].Event.Ask
	if a.Kind != runner.KindQuestion || a.Target != "which db?" || strings.Join(a.Choices, ",") != "sqlite,postgres" || a.CallID == "" {
		t.Fatalf("ask = %+v", a)
	}
	if err := s.Answer(a.ID, runner.Reply{Answer: "mysql"}); !errors.Is(err, runner.ErrAnswer) {
		t.Errorf("an answer not among the options: %v", err)
	}
	if err := s.Answer(a.ID, runner.Reply{Answer: "sqlite"}); err != nil {
		t.Fatal(err)
	}
	until(t, u, agent.EventDone)
	if got := lastResult(t, f.srv); !strings.Contains(got, "The user answered: sqlite") {
		t.Errorf("result = %q", got)
	}
}

// TestAbort: Abort stops the running turn (its command is killed), drops
// the queue and resolves a pending ask as deny by abort.
func TestAbort(t *testing.T) {
	t.Parallel()
	t.Run("model call", func(t *testing.T) {
		f := newFixture(t, providertest.Turn{Text: "slow", Delay: providertest.Duration(time.Minute)}, providertest.Text("after"))
		s := f.start(f.options())
		var res agent.Result
		var err error
		done := make(chan struct{})
		go func() { res, err = s.Run(context.Background(), "first"); close(done) }()
		<-f.srv.Stalled()
		if err := s.Send("queued"); err != nil {
			t.Fatal(err)
		}
		s.Abort()
		<-done
		if err == nil || res.StopReason != string(runner.StopCancelled) {
			t.Errorf("aborted turn: %q, %v", res.StopReason, err)
		}
		if st := s.State(); st.Queued != 0 || st.StopReason != runner.StopCancelled {
			t.Errorf("state after abort = %+v", st)
		}
		// The session goes on with the next prompt.
		if res, err := s.Run(context.Background(), "again"); err != nil || res.Messages[len(res.Messages)-1].TextOf() != "after" {
			t.Errorf("after abort: %v", err)
		}
	})
	t.Run("pending ask", func(t *testing.T) {
		f := newFixture(t, bash("echo x > x.txt"), providertest.Text("done"))
		s := f.start(f.options())
		u, _ := s.Subscribe(0)
		done := make(chan agent.Result)
		go func() { r, _ := s.Run(context.Background(), "go"); done <- r }()
		evs := until(t, u, agent.EventAsk)
		id := evs[len(evs)-1].Event.Ask.ID
		s.Abort()
		evs = until(t, u, agent.EventResolved)
		if e := evs[len(evs)-1].Event; e.AskID != id || e.Answer != "deny" || e.By != "abort" {
			t.Errorf("resolved = %+v", e)
		}
		if r := <-done; r.StopReason != string(runner.StopCancelled) {
			t.Errorf("stop reason %q", r.StopReason)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "x.txt")); err == nil {
			t.Error("the denied command ran")
		}
		if len(s.Pending()) != 0 {
			t.Error("asks pending after abort")
		}
	})
}

// TestAbortKillsTool: a running command is killed by Abort.
func TestAbortKillsTool(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Call("bash", map[string]string{"command": "true; sleep 60"}), providertest.Text("done"))
	o := f.options()
	o.Turn.Auto, o.Interactive = true, false
	s := f.start(o)
	u, _ := s.Subscribe(0)
	done := make(chan time.Duration)
	go func() { t0 := time.Now(); s.Run(context.Background(), "go"); done <- time.Since(t0) }()
	until(t, u, agent.EventPermission)
	s.Abort()
	evs := until(t, u, agent.EventDone)
	if e := evs[len(evs)-1].Event; e.StopReason != "cancelled" {
		t.Errorf("done = %+v", e)
	}
	<-done
}

// TestSetMode: a live switch goes through the engine and its locks; the
// running turn's next decision uses the new mode; mode_change is emitted
// and the mode recorded.
func TestSetMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		providertest.Call("write", map[string]string{"path": "a.txt", "content": "a"}),
		providertest.Call("write", map[string]string{"path": "b.txt", "content": "b"}),
		providertest.Text("done"))
	f.locks = permission.Locks{DisallowedModes: map[permission.Mode]string{permission.BypassPermissions: "locked out by requirements test.json (serial 1)"}}
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	evs := until(t, u, agent.EventAsk)
	a := evs[len(evs)-1].Event.Ask
	if a.Tool != "write" {
		t.Fatalf("ask = %+v", a)
	}
	if _, err := s.SetMode("sideways"); err == nil {
		t.Error("an unknown mode: no error")
	}
	m, err := s.SetMode(permission.BypassPermissions)
	if err != nil || m.Mode != permission.Default || !m.Downgraded || !strings.Contains(m.Reason, "locked out by requirements") {
		t.Errorf("bypass under a lock = %+v, %v", m, err)
	}
	evs = until(t, u, agent.EventModeChange)
	if e := evs[len(evs)-1].Event; e.Key != "permission_mode" || e.Requested != "bypassPermissions" || e.Mode != "default" || e.Text != m.Reason {
		t.Errorf("mode_change = %+v", e)
	}
	if m, err := s.SetMode(permission.AcceptEdits); err != nil || m.Mode != permission.AcceptEdits || m.Downgraded {
		t.Errorf("acceptEdits = %+v, %v", m, err)
	}
	if err := s.Answer(a.ID, runner.Reply{Answer: agent.Once}); err != nil {
		t.Fatal(err)
	}
	// The second write is allowed by acceptEdits: no second ask.
	for _, ev := range until(t, u, agent.EventDone) {
		if ev.Event.Type == agent.EventAsk {
			t.Errorf("asked again after acceptEdits: %+v", ev.Event.Ask)
		}
	}
	if s.Mode().Mode != permission.AcceptEdits {
		t.Errorf("mode = %+v", s.Mode())
	}
	id := s.ID()
	s.Close()
	if rec, err := f.store.Get(context.Background(), id); err != nil || rec.Mode != "acceptEdits" {
		t.Errorf("recorded mode %q, %v", rec.Mode, err)
	}
}

// TestResumePendingAsk: Close keeps a pending ask; a new session on the
// same store (a restarted server) offers it again; once answered the
// interrupted call runs and the turn goes on without a new prompt.
func TestResumePendingAsk(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo resumed > r.txt"))
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	evs := until(t, u, agent.EventAsk)
	first := *evs[len(evs)-1].Event.Ask
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if rec, _ := f.store.Get(context.Background(), id); rec.Status != session.Interrupted {
		t.Errorf("status after Close with an ask pending: %s", rec.Status)
	}
	if p, _ := f.store.Asks(context.Background(), id, true); len(p) != 1 || p[0].ID != first.ID {
		t.Fatalf("stored pending asks = %+v", p)
	}
	lastSeq, _ := f.store.LastEventSeq(context.Background(), id)

	// The restarted process: another store handle, another model script.
	f2 := newFixture(t, providertest.Text("finished"))
	f2.dir, f2.db = f.dir, f.db
	o := f2.options()
	o.Store = f2.openStore()
	o.Resume = id
	s2 := f2.start(o)
	p := s2.Pending()
	if len(p) != 1 || p[0].ID != first.ID || p[0].InputDigest != first.InputDigest {
		t.Fatalf("pending after resume = %+v", p)
	}
	u2, err := s2.Subscribe(lastSeq)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, u2); ev.Seq != lastSeq+1 || ev.Event.Type != agent.EventAsk || ev.Event.Ask.ID != first.ID {
		t.Errorf("first event after resume = %d %+v", ev.Seq, ev.Event)
	}
	if err := s2.Answer(first.ID, runner.Reply{Answer: agent.Once, By: "restart"}); err != nil {
		t.Fatal(err)
	}
	evs = until(t, u2, agent.EventDone)
	for _, ev := range evs {
		if ev.Event.Type == agent.EventAsk {
			t.Errorf("asked again: %+v", ev.Event.Ask)
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "r.txt")); err != nil || string(b) != "resumed\n" {
		t.Errorf("the interrupted call did not run: %q, %v", b, err)
	}
	if got := lastResult(t, f2.srv); strings.Contains(got, "interrupted") {
		t.Errorf("the model was told %q", got)
	}
	s2.Close()
	ms, _ := f.store.Messages(context.Background(), id)
	if len(ms) != 4 || ms[3].TextOf() != "finished" {
		t.Errorf("stored conversation = %+v", ms)
	}
	if p, _ := f.store.Asks(context.Background(), id, true); len(p) != 0 {
		t.Errorf("asks still pending: %+v", p)
	}
	// The whole stream replays from the store, numbered without gaps.
	all, _ := f.store.Events(context.Background(), id, 0)
	for i, e := range all {
		if e.Seq != int64(i+1) {
			t.Fatalf("stored event %d has Seq %d", i, e.Seq)
		}
	}
}

// TestLaggedSubscriber: a subscriber that does not read is dropped; the
// session and the other subscribers go on.
func TestLaggedSubscriber(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text(strings.Repeat("word ", 200)))
	o := f.options()
	o.Buffer = 8
	s := f.start(o)
	slow, _ := s.Subscribe(0)
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range slow.C() {
		n++
	}
	if !errors.Is(slow.Err(), runner.ErrLagged) || n > o.Buffer+1 {
		t.Errorf("slow subscriber: %v after %d events", slow.Err(), n)
	}
	// A subscriber that comes back replays what it missed.
	u, err := s.Subscribe(int64(n))
	if err != nil {
		t.Fatal(err)
	}
	for want := int64(n + 1); want <= s.LastSeq(); want++ {
		if ev := <-u.C(); ev.Seq != want {
			t.Fatalf("replay: got %d, want %d", ev.Seq, want)
		}
	}
}

// TestSubscribeConcurrent: subscribers joining at any point while events
// flow (and after, from the store) see every event after their point once,
// in order.
func TestSubscribeConcurrent(t *testing.T) {
	t.Parallel()
	const words = 6000 // more events than the ring holds
	f := newFixture(t, providertest.Text(strings.Repeat("w ", words)))
	o := f.options()
	o.Buffer = words // the race detector slows the readers: this test is not about lag
	s := f.start(o)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	check := func(after int64, u *runner.Subscription) {
		defer wg.Done()
		defer u.Close()
		want := after + 1
		for ev := range u.C() {
			if ev.Seq != want {
				errs <- errors.New("subscriber after " + itoa(after) + ": got " + itoa(ev.Seq) + ", want " + itoa(want))
				return
			}
			var e agent.Event
			if err := json.Unmarshal(ev.Data, &e); err != nil || e.Type != ev.Event.Type {
				errs <- errors.New("data does not match the event at " + itoa(ev.Seq))
				return
			}
			want++
			if ev.Event.Type == agent.EventDone {
				return
			}
		}
		errs <- errors.New("subscriber after " + itoa(after) + " closed early")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := s.Run(context.Background(), "go"); err != nil {
			errs <- err
		}
	}()
	// The subscribers join as the turn goes: each after the next event of a
	// pacing subscription (or at once when the turn has ended), not after a
	// sleep.
	pace, err := s.Subscribe(s.LastSeq())
	if err != nil {
		t.Fatal(err)
	}
	defer pace.Close()
	for i := 0; i < 16; i++ {
		after := s.LastSeq() / int64(1+i%3) // now, or some way back
		u, err := s.Subscribe(after)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go check(after, u)
		select {
		case <-pace.C():
		case <-done:
		}
	}
	<-done
	// After the turn: from the start (older than the ring: read from the
	// store) and from the middle.
	for _, after := range []int64{0, 5, s.LastSeq() / 2} {
		u, err := s.Subscribe(after)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go check(after, u)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s.LastSeq() < words {
		t.Errorf("only %d events", s.LastSeq())
	}
}

// TestGapWithoutStore: a session that is not recorded cannot replay what
// its ring dropped.
func TestGapWithoutStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text(strings.Repeat("w ", 6000)))
	o := f.options()
	o.Store = nil
	s := f.start(o)
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if s.ID() != "" {
		t.Errorf("ID of an unrecorded session = %q", s.ID())
	}
	if _, err := s.Subscribe(0); !errors.Is(err, runner.ErrGap) {
		t.Errorf("Subscribe(0) = %v, want ErrGap", err)
	}
	u, err := s.Subscribe(s.LastSeq() - 1)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, u); ev.Event.Type != agent.EventDone {
		t.Errorf("last event = %+v", ev.Event)
	}
}

// TestRecordFails: a session whose record cannot be made stops its turn
// and Run says why.
func TestRecordFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("true"), providertest.Text("done"))
	o := f.options()
	o.Store = nil
	o.OpenStore = func(context.Context) (*session.Store, error) { return nil, errors.New("open sessions: disk full") }
	s := f.start(o)
	if _, err := s.Run(context.Background(), "go"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Run = %v", err)
	}
}

// TestCreateAfter: a new session's record waits for CreateAfter (or a
// tool call); the writes made before land in order.
func TestCreateAfter(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("hi"), bash("true"), providertest.Text("done"))
	o := f.options()
	o.CreateAfter = make(chan struct{}) // never closed
	s := f.start(o)
	if _, err := s.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	if s.CurrentID() != "" {
		t.Error("the record exists before anything needed it")
	}
	if _, err := s.Run(context.Background(), "two"); err != nil { // its tool call needs the record
		t.Fatal(err)
	}
	id := s.CurrentID()
	if id == "" {
		t.Fatal("no record after a tool call")
	}
	s.Close()
	evs, _ := f.store.Events(context.Background(), id, 0)
	if len(evs) == 0 || evs[0].Type != "start" || int64(len(evs)) != s.LastSeq() {
		t.Errorf("%d events stored of %d", len(evs), s.LastSeq())
	}
}

// TestSubAgent: the task tool runs a sub-agent through Options.SubAgent;
// without it the tool says sub-agents are unavailable.
func TestSubAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Call("task", map[string]string{"prompt": "look around"}), providertest.Text("the sub-agent's answer"),
		providertest.Text("done"), providertest.Call("task", map[string]string{"prompt": "again"}), providertest.Text("done"))
	o := f.options()
	var asked []string
	o.SubAgent = func(name string) (agent.Config, error) {
		asked = append(asked, name)
		c := f.turn()
		c.Agent = agent.Explore
		return c, nil
	}
	s := f.start(o)
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := lastResult(t, f.srv); !strings.Contains(got, "the sub-agent's answer") || len(asked) != 1 {
		t.Errorf("task result = %q (asked %v)", got, asked)
	}
	o.SubAgent = nil
	s2 := f.start(o)
	if _, err := s2.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := lastResult(t, f.srv); !strings.Contains(got, "not available") {
		t.Errorf("task result without SubAgent = %q", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestStopReasonStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    runner.StopReason
		want session.Status
	}{
		{runner.StopEndTurn, session.Completed},
		{runner.StopCancelled, session.Interrupted},
		{runner.StopTimeout, session.Interrupted},
		{runner.StopMaxTurns, session.Failed},
		{runner.StopError, session.Failed},
	} {
		if got := runner.RecordStatus(tc.r); got != tc.want {
			t.Errorf("%s: status %s, want %s", tc.r, got, tc.want)
		}
	}
}

// TestTimeoutAndMaxTurns: the turn's limits give typed stop reasons and
// the record's status.
func TestTimeoutAndMaxTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Turn{Text: "slow", Delay: providertest.Duration(time.Minute)}, bash("true"), bash("true"))
	o := f.options()
	o.Turn.Timeout = 200 * time.Millisecond
	s := f.start(o)
	if _, err := s.Run(context.Background(), "slow"); err == nil || s.State().StopReason != runner.StopTimeout {
		t.Errorf("timeout: %v, %s", err, s.State().StopReason)
	}
	o = f.options()
	o.Turn.MaxTurns = 1
	s = f.start(o)
	if _, err := s.Run(context.Background(), "loop"); !errors.Is(err, agent.ErrMaxTurns) || s.State().StopReason != runner.StopMaxTurns {
		t.Errorf("max turns: %v, %s", err, s.State().StopReason)
	}
	id := s.ID()
	s.Close()
	if rec, _ := f.store.Get(context.Background(), id); rec.Status != session.Failed {
		t.Errorf("status after max turns: %s", rec.Status)
	}
}

// TestFirstAnswerWins: clients answering the same ask at once: one wins,
// every other gets the winner's answer back.
func TestFirstAnswerWins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo x > x.txt"), providertest.Text("done"))
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	evs := until(t, u, agent.EventAsk)
	id := evs[len(evs)-1].Event.Ask.ID
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := agent.Once
			if i%2 == 1 {
				a = agent.Deny
			}
			errs[i] = s.Answer(id, runner.Reply{Answer: a, By: "client-" + itoa(int64(i))})
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("two answers won: %d and %d", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no answer won: %v", errs)
	}
	for i, err := range errs {
		var ae *runner.AnsweredError
		if i != winner && (!errors.As(err, &ae) || ae.First.By != "client-"+itoa(int64(winner))) {
			t.Errorf("answer %d: %v", i, err)
		}
	}
	resolved := 0
	for _, ev := range until(t, u, agent.EventDone) {
		if ev.Event.Type == agent.EventResolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("%d resolved events", resolved)
	}
}

// TestResumeAnsweredAsk: an ask answered in the store (by a process that
// stopped before running the call) settles the call when the session is
// resumed: nothing is asked again.
func TestResumeAnsweredAsk(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo settled > s.txt"))
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	evs := until(t, u, agent.EventAsk)
	a := evs[len(evs)-1].Event.Ask
	id := s.ID()
	s.Close()
	if err := f.store.AnswerAsk(context.Background(), id, a.ID, "once", "", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	f2 := newFixture(t, providertest.Text("finished"))
	f2.dir, f2.db = f.dir, f.db
	o := f2.options()
	o.Store = f2.openStore()
	o.Resume = id
	s2 := f2.start(o)
	if p := s2.Pending(); len(p) != 0 {
		t.Errorf("pending after resume = %+v", p)
	}
	u2, _ := s2.Subscribe(s2.LastSeq())
	for _, ev := range until(t, u2, agent.EventDone) {
		if ev.Event.Type == agent.EventAsk {
			t.Errorf("asked again: %+v", ev.Event.Ask)
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "s.txt")); err != nil || string(b) != "settled\n" {
		t.Errorf("the call did not run: %q, %v", b, err)
	}
}

// TestOnEvent: the synchronous hook sees every event in Seq order, on the
// emitting goroutine, and may read the session's state.
func TestOnEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("true"), providertest.Text("done"))
	o := f.options()
	var s *runner.Session
	var seqs []int64
	var mu sync.Mutex
	o.OnEvent = func(ev runner.Event) {
		if st := s.State(); st.LastSeq < ev.Seq {
			t.Errorf("state's LastSeq %d behind event %d", st.LastSeq, ev.Seq)
		}
		mu.Lock()
		seqs = append(seqs, ev.Seq)
		mu.Unlock()
	}
	s = f.start(o)
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	for i, q := range seqs {
		if q != int64(i+1) {
			t.Fatalf("OnEvent got %v", seqs)
		}
	}
	if int64(len(seqs)) != s.LastSeq() {
		t.Errorf("OnEvent got %d of %d events", len(seqs), s.LastSeq())
	}
}

// TestResumeHeadless: a headless session (run --session) resuming a
// session whose call waits for an ask does not offer it: the call goes
// through the headless policy, the ask is resolved by "headless", then the
// new prompt runs.
func TestResumeHeadless(t *testing.T) {
	t.Parallel()
	f := newFixture(t, bash("echo no > no.txt"))
	s := f.start(f.options())
	u, _ := s.Subscribe(0)
	s.Send("go")
	until(t, u, agent.EventAsk)
	id := s.ID()
	s.Close()
	f2 := newFixture(t, providertest.Text("could not run it"), providertest.Text("next done"))
	f2.dir, f2.db = f.dir, f.db
	o := f2.options()
	o.Store, o.Resume, o.Interactive = f2.openStore(), id, false
	s2 := f2.start(o)
	u2, _ := s2.Subscribe(s2.LastSeq())
	res, err := s2.Run(context.Background(), "next")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[len(res.Messages)-1].TextOf(); got != "next done" {
		t.Errorf("last answer %q", got)
	}
	if reqs := f2.srv.Requests(); !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Parts[0].ToolResult.Content, "headless") {
		t.Errorf("the model was told %+v", reqs[0].Messages[len(reqs[0].Messages)-1])
	}
	s2.Close()
	for ev := range u2.C() {
		if ev.Event.Type == agent.EventAsk {
			t.Errorf("a headless session offered %+v", ev.Event.Ask)
		}
	}
	asks, _ := f.store.Asks(context.Background(), id, false)
	if len(asks) != 1 || asks[0].Status != session.AskAnswered || asks[0].By != "headless" {
		t.Errorf("stored asks = %+v", asks)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "no.txt")); err == nil {
		t.Error("the refused call ran")
	}
}

// TestManySessions: sessions side by side on one store and one model, each
// with several turns: every subscriber sees its session's events numbered
// without a gap, and the store holds them all.
func TestManySessions(t *testing.T) {
	t.Parallel()
	const sessions, turns = 12, 4
	f := newFixture(t)
	f.srv = providertest.NewScript(t, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("one two three four five")}})
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := runner.Start(context.Background(), f.options())
			if err != nil {
				errs <- err
				return
			}
			u, _ := s.Subscribe(0)
			for j := 0; j < turns; j++ {
				if err := s.Send("go"); err != nil {
					errs <- err
					return
				}
			}
			want, done := int64(1), 0
			for done < turns {
				ev, ok := <-u.C()
				if !ok {
					errs <- fmt.Errorf("subscription closed: %v", u.Err())
					return
				}
				if ev.Seq != want {
					errs <- fmt.Errorf("got event %d, want %d", ev.Seq, want)
					return
				}
				want++
				if ev.Event.Type == agent.EventDone {
					done++
				}
			}
			id := s.ID()
			if err := s.Close(); err != nil {
				errs <- err
				return
			}
			stored, err := f.store.Events(context.Background(), id, 0)
			if err != nil || int64(len(stored)) != s.LastSeq() || s.LastSeq() != want-1 {
				errs <- fmt.Errorf("session %s: %d stored, %d emitted, %d seen (%v)", id, len(stored), s.LastSeq(), want-1, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestDoneMeansIdle: a client that sees a turn's done event and then asks
// for the state sees the turn ended — idle, the turn counted, its stop
// reason — however the goroutines are scheduled (serve's clients do
// exactly this; it once failed under load).
func TestDoneMeansIdle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("one"), providertest.Text("two"), providertest.Text("three"))
	s := f.start(f.options())
	u, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, prompt := range []string{"a", "b", "c"} {
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		until(t, u, agent.EventDone)
		st := s.State()
		if st.Status != runner.StatusIdle || st.Turns != i+1 || st.StopReason != runner.StopEndTurn {
			t.Fatalf("turn %d: state after done = status %s, turns %d, stop %q", i+1, st.Status, st.Turns, st.StopReason)
		}
	}
}
