package session

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
)

// The tests re-execute the test binary as a child process for what needs a
// real second process: a writer killed with SIGKILL, a holder that dies, a
// panic that must leave a crash report, concurrent writers.
const childEnv = "OCEANCODE_SESSION_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode, os.Getenv("CHILD_DB"), os.Getenv("CHILD_ARG")))
	}
	os.Exit(m.Run())
}

func runChild(mode, db, arg string) int {
	ctx := context.Background()
	switch mode {
	case "append":
		// Create and claim a session, then append until killed, printing
		// each seq only after AppendMessage has returned.
		s, err := Open(ctx, db)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		ss, err := s.Create(ctx, Meta{Agent: "build", Model: "m", Mode: "default", Cwd: "/w"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		lease, err := s.Claim(ctx, ss.ID)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("session %s\n", ss.ID)
		for i := 1; ; i++ {
			seq, err := s.AppendMessage(ctx, ss.ID, childMessage(i))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			fmt.Printf("%d\n", seq)
			if i%50 == 0 {
				if err := lease.Beat(ctx); err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 1
				}
			}
		}
	case "appendn":
		// Append arg="<session> <n>" messages to an existing session.
		id, nstr, _ := strings.Cut(arg, " ")
		n, _ := strconv.Atoi(nstr)
		s, err := Open(ctx, db)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer s.Close()
		for i := 0; i < n; i++ {
			seq, err := s.AppendMessage(ctx, id, message.UserText(fmt.Sprintf("pid %d #%d", os.Getpid(), i)))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			fmt.Printf("%d\n", seq)
		}
		return 0
	case "panic":
		defer Recover(arg, "v9.9.9-test", func() string { return "ses_child" })
		childPanics()
	}
	return 3
}

// childPanics is a named frame the crash report's stack must show.
func childPanics() {
	panic("boom: the key was sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 and token=hunter2hunter2")
}

func childMessage(i int) message.Message {
	return message.Message{Role: message.Assistant, Parts: []message.Part{
		{Type: message.Text, Text: fmt.Sprintf("message %d", i)},
		{Type: message.ToolUse, ToolCall: &message.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "bash", Input: []byte(`{"command": "ls"}`)}},
	}}
}

// child starts the test binary in a child mode. Its stdout is returned as a
// line scanner; the process is killed at test end if still running.
func child(t *testing.T, mode, db, arg string) (*exec.Cmd, *bufio.Scanner, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "CHILD_DB="+db, "CHILD_ARG="+arg)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, bufio.NewScanner(out), stderr
}

// openStore opens a fresh store in a temporary directory.
func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newSession(t testing.TB, s *Store) *Session {
	t.Helper()
	ss, err := s.Create(context.Background(), Meta{Agent: "build", Model: "claude-test", Mode: "default", Cwd: "/work", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// readAll drains a scanner (the child's stdout) into lines.
func readAll(sc *bufio.Scanner) []string {
	var out []string
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// deadPID is the pid of a child process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=exit")
	cmd.Run() // exits 3
	return cmd.Process.Pid
}
