//go:build unix

package prestart

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Spawn wires the three pipes, gives the child its own process group and
// passes HelperArg; a child whose input closes sees EOF.
func TestSpawn(t *testing.T) {
	script := filepath.Join(t.TempDir(), Binary)
	body := "#!/bin/sh\necho \"arg=$1 pgid=$(ps -o pgid= -p $$ | tr -d ' ') pid=$$\"\necho to-stderr >&2\nread line\necho \"got=$line\"\nread rest || echo eof\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Spawn(script)
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(p.Stdout)
	first, _ := out.ReadString('\n')
	var arg, pgid, pid string
	for _, f := range strings.Fields(first) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "arg":
			arg = v
		case "pgid":
			pgid = v
		case "pid":
			pid = v
		}
	}
	if arg != HelperArg || pgid == "" || pgid != pid {
		t.Fatalf("child says %q: want arg %s and its own process group", first, HelperArg)
	}
	if errLine, _ := bufio.NewReader(p.Stderr).ReadString('\n'); errLine != "to-stderr\n" {
		t.Errorf("stderr %q", errLine)
	}
	p.Stdin.WriteString("ping\n")
	if got, _ := out.ReadString('\n'); got != "got=ping\n" {
		t.Errorf("stdin round trip: %q", got)
	}
	p.Stdin.Close()
	if got, _ := out.ReadString('\n'); got != "eof\n" {
		t.Errorf("after closing its input the child read %q, want EOF", got)
	}
	st, err := p.Proc.Wait()
	if err != nil || !st.Success() {
		t.Fatalf("wait: %v %v", st, err)
	}
}

func TestSpawnMissing(t *testing.T) {
	_, err := Spawn(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "start model client") {
		t.Fatalf("error %v", err)
	}
}

// Take hands over the client started during initialisation exactly once;
// with none started it has nothing to give.
func TestTakeOnce(t *testing.T) {
	p := startEarly(t, "exec cat >/dev/null")
	if got := Take(); got != p {
		t.Fatalf("first Take = %v, want the early client", got)
	}
	if got := Take(); got != nil {
		t.Fatalf("second Take = %v, want nil", got)
	}
	Release() // taken: must leave it alone
	if err := p.Proc.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("Release killed a client that was taken: %v", err)
	}
	p.Stdin.Close()
	if st, err := p.Proc.Wait(); err != nil || !st.Success() {
		t.Fatalf("client ended %v %v, want a clean exit on EOF", st, err)
	}
}

// Release kills and reaps a client started during initialisation that
// nobody took: afterwards the process is gone, not even a zombie.
func TestReleaseReapsUntakenClient(t *testing.T) {
	p := startEarly(t, "exec sleep 60")
	Release()
	// Reaped: waiting for it again finds no such child; signalling finds no process.
	if _, err := syscall.Wait4(p.Proc.Pid, nil, syscall.WNOHANG, nil); !errors.Is(err, syscall.ECHILD) {
		t.Errorf("wait4 after Release: %v, want ECHILD (already reaped)", err)
	}
	if err := syscall.Kill(p.Proc.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill -0 after Release: %v, want ESRCH (gone)", err)
	}
	if Take() != nil {
		t.Error("Take after Release returned the released client")
	}
}

// startEarly spawns a shell script as if during initialisation and makes it
// the client Take and Release see.
func startEarly(t *testing.T, body string) *Process {
	t.Helper()
	script := filepath.Join(t.TempDir(), Binary)
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := spawn(script, true)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	early, taken = p, false
	mu.Unlock()
	t.Cleanup(func() { mu.Lock(); early, taken = nil, true; mu.Unlock() })
	return p
}
