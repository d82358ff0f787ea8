package session

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestLeaseBeatRelease(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	ss := newSession(t, s)
	lease, err := s.Claim(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if lease.ID() != ss.ID {
		t.Errorf("lease id %s", lease.ID())
	}
	// Claiming again from the same process is allowed (Create already made
	// this process the holder).
	if _, err := s.Claim(ctx, ss.ID); err != nil {
		t.Errorf("second claim from the holder: %v", err)
	}
	// An old heartbeat is stale, then fresh again after Beat.
	old := time.Now().Add(-time.Hour).UnixNano()
	if _, err := s.db.ExecContext(ctx, "UPDATE sessions SET heartbeat_at = ? WHERE id = ?", old, ss.ID); err != nil {
		t.Fatal(err)
	}
	g, _ := s.Get(ctx, ss.ID)
	if g.Holder == nil || !g.Holder.Stale {
		t.Fatalf("holder %+v, want stale", g.Holder)
	}
	if orphans, _ := s.Orphans(ctx); len(orphans) != 0 {
		t.Errorf("a live holder with an old heartbeat is no orphan: %+v", orphans)
	}
	if err := lease.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Get(ctx, ss.ID)
	if g.Holder.Stale || time.Since(g.Holder.Heartbeat) > time.Minute {
		t.Errorf("after Beat: %+v", g.Holder)
	}

	if err := lease.Release(ctx, Running); err == nil {
		t.Error("Release(running) accepted")
	}
	if err := lease.Release(ctx, Completed); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Get(ctx, ss.ID)
	if g.Status != Completed || g.Holder != nil || g.Closed.IsZero() {
		t.Errorf("after Release: %+v", g)
	}
	for name, err := range map[string]error{"beat": lease.Beat(ctx), "release": lease.Release(ctx, Failed)} {
		if !errors.Is(err, ErrLeaseLost) {
			t.Errorf("%s after release: %v, want ErrLeaseLost", name, err)
		}
	}

	// Resuming a closed session: Claim makes it running again.
	lease, err = s.Claim(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	g, _ = s.Get(ctx, ss.ID)
	if g.Status != Running || !g.Closed.IsZero() || g.Holder == nil {
		t.Errorf("after resume: %+v", g)
	}
	// Closing it out from under the lease loses the lease.
	if err := s.CloseSession(ctx, ss.ID, Interrupted); err != nil {
		t.Fatal(err)
	}
	if err := lease.Beat(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("beat after close: %v", err)
	}
}

func TestOrphanHolders(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	me := self()
	gone := deadPID(t)
	for _, tc := range []struct {
		name   string
		pid    any
		start  any
		orphan bool
	}{
		{"this process", me.pid, me.start, false},
		{"process gone", gone, "linux:x:1", true},
		{"pid reused by another process", me.pid, me.start[:strings.LastIndexByte(me.start, ':')] + ":1", runtime.GOOS == "linux"},
		{"earlier boot", me.pid, "linux:another-boot:1", runtime.GOOS == "linux"},
		{"start unknown, pid alive", me.pid, "claim:12345", false},
		{"no holder", nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := newSession(t, s)
			if _, err := s.db.ExecContext(ctx, "UPDATE sessions SET holder_pid = ?, holder_start = ?, heartbeat_at = ? WHERE id = ?",
				tc.pid, tc.start, time.Now().UnixNano(), ss.ID); err != nil {
				t.Fatal(err)
			}
			orphans, err := s.Orphans(ctx)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, o := range orphans {
				if o.ID == ss.ID {
					found = true
					if o.Reason == "" {
						t.Error("orphan without a reason")
					}
				}
			}
			if found != tc.orphan {
				t.Errorf("orphan = %v, want %v", found, tc.orphan)
			}
			// An orphan can be claimed and closed; a session another live
			// process holds can be neither.
			heldElsewhere := !tc.orphan && !(tc.pid == me.pid && tc.start == me.start)
			_, err = s.Claim(ctx, ss.ID)
			if heldElsewhere != errors.Is(err, ErrHeld) || !heldElsewhere && err != nil {
				t.Errorf("claim: %v (held elsewhere: %v)", err, heldElsewhere)
			}
			err = s.CloseSession(ctx, ss.ID, Interrupted)
			if heldElsewhere != errors.Is(err, ErrHeld) || !heldElsewhere && err != nil {
				t.Errorf("close: %v (held elsewhere: %v)", err, heldElsewhere)
			}
			s.db.ExecContext(ctx, "UPDATE sessions SET status = 'interrupted' WHERE id = ?", ss.ID)
		})
	}
	// Closed sessions are never orphans, whoever held them.
	if orphans, _ := s.Orphans(ctx); len(orphans) != 0 {
		t.Errorf("orphans after closing all: %+v", orphans)
	}
}

func TestAlive(t *testing.T) {
	me := self()
	if !alive(me.pid, me.start) {
		t.Error("this process is not alive")
	}
	if alive(0, "") || alive(-1, "") {
		t.Error("pid <= 0 alive")
	}
	if alive(deadPID(t), "") {
		t.Error("dead pid alive")
	}
	if runtime.GOOS == "linux" {
		start, ok := startOf(os.Getpid())
		if !ok || start != me.start {
			t.Errorf("startOf = %q, %v; self %q", start, ok, me.start)
		}
	}
}
