//go:build unix

package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/message"
)

// TestKillDuringAppendsLosesNothing: a child appends messages as fast as it
// can and prints each seq once AppendMessage has returned; it is killed with
// SIGKILL mid-stream. Every printed seq must be in the database, in order and
// intact, the file must pass integrity_check, and the session is an orphan
// that can be resumed.
func TestKillDuringAppendsLosesNothing(t *testing.T) {
	// Kill at different depths: right after the first append, and later.
	for _, after := range []int{1, 100, 700} {
		t.Run(fmt.Sprint(after), func(t *testing.T) { killDuringAppends(t, after) })
	}
}

func killDuringAppends(t *testing.T, after int) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state", "sessions.db")
	cmd, out, stderr := child(t, "append", db, "")

	if !out.Scan() {
		t.Fatalf("child printed nothing; stderr: %s", stderr)
	}
	id, ok := strings.CutPrefix(out.Text(), "session ")
	if !ok {
		t.Fatalf("child said %q", out.Text())
	}
	var printed []int64
	for len(printed) < after && out.Scan() {
		n, err := strconv.ParseInt(out.Text(), 10, 64)
		if err != nil {
			t.Fatalf("child said %q", out.Text())
		}
		printed = append(printed, n)
	}

	// While the child runs, its session is held and is no orphan.
	s, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if orphans, err := s.Orphans(ctx); err != nil || len(orphans) != 0 {
		t.Fatalf("orphans while the holder runs: %+v, %v", orphans, err)
	}
	if _, err := s.Claim(ctx, id); !errors.Is(err, ErrHeld) {
		t.Fatalf("claim of a live process's session: %v, want ErrHeld", err)
	}
	if err := s.Delete(ctx, id); !errors.Is(err, ErrHeld) {
		t.Fatalf("delete of a live process's session: %v, want ErrHeld", err)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Lines already in the pipe were printed after their append returned.
	for _, line := range readAll(out) {
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			continue // a line cut by the kill
		}
		printed = append(printed, n)
	}
	err = cmd.Wait()
	var ee interface{ Sys() any }
	if !errors.As(err, &ee) {
		t.Fatalf("child exit: %v", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed by SIGKILL: %v", err)
	}
	t.Logf("child appended at least %d messages before SIGKILL", len(printed))

	// Reopen as a new process would.
	s2, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Check(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := s2.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < len(printed) {
		t.Fatalf("%d messages recorded, but the child saw %d appends return", len(ms), len(printed))
	}
	for i, seq := range printed {
		if seq != int64(i+1) {
			t.Fatalf("printed seq %d at position %d", seq, i)
		}
	}
	for i, m := range ms {
		if !reflect.DeepEqual(m, childMessage(i+1)) {
			t.Fatalf("message %d = %#v, want %#v", i+1, m, childMessage(i+1))
		}
	}

	// The dead holder makes it an orphan, which can be resumed.
	orphans, err := s2.Orphans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans) != 1 || orphans[0].ID != id || orphans[0].Holder.PID != cmd.Process.Pid {
		t.Fatalf("orphans = %+v, want %s held by %d", orphans, id, cmd.Process.Pid)
	}
	if !strings.Contains(orphans[0].Reason, fmt.Sprint(cmd.Process.Pid)) {
		t.Errorf("reason %q", orphans[0].Reason)
	}
	lease, err := s2.Claim(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := s2.AppendMessage(ctx, id, message.UserText("resumed")); err != nil || seq != int64(len(ms)+1) {
		t.Fatalf("append after resume: seq %d, %v", seq, err)
	}
	if orphans, _ := s2.Orphans(ctx); len(orphans) != 0 {
		t.Errorf("still orphaned after claim: %+v", orphans)
	}
	if err := lease.Release(ctx, Interrupted); err != nil {
		t.Fatal(err)
	}
}

// TestProcessesShareOneSession: several processes append to the same
// session at once; every append gets its own seq and none fails busy.
func TestProcessesShareOneSession(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "sessions.db")
	s, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss := newSession(t, s)
	const procs, each = 4, 100
	type result struct {
		seqs []int64
		err  error
	}
	results := make(chan result, procs)
	for p := 0; p < procs; p++ {
		cmd, out, stderr := child(t, "appendn", db, fmt.Sprintf("%s %d", ss.ID, each))
		go func() {
			var r result
			for _, line := range readAll(out) {
				n, _ := strconv.ParseInt(line, 10, 64)
				r.seqs = append(r.seqs, n)
			}
			if err := cmd.Wait(); err != nil {
				r.err = fmt.Errorf("%v: %s", err, stderr)
			}
			results <- r
		}()
	}
	// This process appends too, meanwhile.
	for i := 0; i < each; i++ {
		if _, err := s.AppendMessage(ctx, ss.ID, message.UserText("parent")); err != nil {
			t.Fatal(err)
		}
	}
	var all []int64
	for p := 0; p < procs; p++ {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatal(r.err)
			}
			all = append(all, r.seqs...)
		case <-time.After(2 * time.Minute):
			t.Fatal("children did not finish")
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("seq %d given twice", all[i])
		}
	}
	ms, err := s.Messages(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != procs*each || len(ms) != (procs+1)*each {
		t.Errorf("children got %d seqs, %d messages stored; want %d and %d", len(all), len(ms), procs*each, (procs+1)*each)
	}
}
