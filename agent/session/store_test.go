package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOpenCreatesPrivateFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	dir := filepath.Join(t.TempDir(), "state", "oceancode")
	path := filepath.Join(dir, "sessions.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	newSession(t, s) // make SQLite write the -wal file
	for p, want := range map[string]os.FileMode{
		dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}

func TestOpenNarrowsExistingFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	path := filepath.Join(t.TempDir(), "sessions.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	fi, _ := os.Stat(path)
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("mode %v, want 0600", got)
	}
}

func TestOpenSettings(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"synchronous", "1"}, // NORMAL
		{"user_version", "3"},
	} {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
	var versions []int
	rows, err := s.db.QueryContext(ctx, "SELECT version FROM schema_version ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		rows.Scan(&v)
		versions = append(versions, v)
	}
	rows.Close()
	if len(versions) != SchemaVersion || versions[len(versions)-1] != SchemaVersion {
		t.Errorf("schema_version rows %v, want 1..%d", versions, SchemaVersion)
	}
	if len(migrations) != SchemaVersion {
		t.Errorf("SchemaVersion %d, but %d migrations", SchemaVersion, len(migrations))
	}
}

func TestOpenPathNeedingEscape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?b#c%d e")
	path := filepath.Join(dir, "sessions.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s)
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the given path: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		t.Fatal("nothing in dir")
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ss := newSession(t, s)
	if _, err := s.AppendMessage(ctx, ss.ID, childMessage(1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Messages != 1 {
		t.Errorf("messages %d, want 1", got.Messages)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
	if !strings.HasPrefix(err.Error(), "session: open "+path+": ") {
		t.Errorf("error %q does not read session: open <path>: …", err)
	}
}

func TestOpenMigratesOnce(t *testing.T) {
	// Several stores opening a new file at once: one migrates, all open.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_version").Scan(&n)
	if n != SchemaVersion {
		t.Errorf("%d schema_version rows, want %d", n, SchemaVersion)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, []byte("x"), 0o600)
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o600)
	for _, tc := range []struct{ name, path string }{
		{"parent is a file", filepath.Join(notDir, "sessions.db")},
		{"path is a directory", dir},
		{"not a database", garbage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(context.Background(), tc.path)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if !strings.HasPrefix(err.Error(), "session: open ") {
				t.Errorf("error %q does not read session: open …", err)
			}
		})
	}
}

func TestIDsSortAndDiffer(t *testing.T) {
	var ids []string
	seen := map[string]bool{}
	now := time.Now()
	for i := 0; i < 2000; i++ {
		id := newID(now.Add(time.Duration(i/100) * time.Millisecond))
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if !sort.StringsAreSorted(ids) {
		t.Error("ids not in creation order")
	}
	if len(ids[0]) != len("ses_")+26 || !strings.HasPrefix(ids[0], "ses_") {
		t.Errorf("id %q: want ses_ and 26 characters", ids[0])
	}
	// A later millisecond sorts after, even across processes.
	a, b := newID(now.Add(time.Hour)), newID(now.Add(2*time.Hour))
	if a >= b {
		t.Errorf("%s >= %s", a, b)
	}
}

func TestStatsAndCheck(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, st := range []Status{Completed, Completed, Failed, Running} {
		ss := newSession(t, s)
		if st != Running {
			if err := s.CloseSession(ctx, ss.ID, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Status]int{Completed: 2, Failed: 1, Running: 1}
	if st.Path != s.Path() || st.JournalMode != "wal" || st.SchemaVersion != SchemaVersion || st.Sessions != 4 || st.Size == 0 {
		t.Errorf("stats %+v", st)
	}
	for k, v := range want {
		if st.ByStatus[k] != v {
			t.Errorf("by status %v, want %v", st.ByStatus, want)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Error(err)
	}
}
