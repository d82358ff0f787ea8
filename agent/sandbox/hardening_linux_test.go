//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/sandbox/egress"
)

// inheritedFD opens path for writing on a descriptor without close-on-exec,
// as a parent process (a shell doing `exec 5>file`) would hand it down, and
// returns its number.
func inheritedFD(t *testing.T, path string) int {
	t.Helper()
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return fd
}

// fdScript writes through the inherited descriptor and lists the
// descriptors the command holds (ls's own directory descriptor included).
const fdScript = `echo leaked >&$LEAKFD; ls /proc/self/fd | tr '\n' ' '`

// checkOnlyStdio judges a run of fdScript: the host file is untouched and
// the command held 0, 1, 2 and at most the one ls opened.
func checkOnlyStdio(t *testing.T, out, host string) {
	t.Helper()
	if got := read(host); got != "" {
		t.Errorf("the inherited descriptor was written from inside: host file = %q", got)
	}
	fds := strings.Fields(out)
	if len(fds) < 3 || len(fds) > 4 || fds[0] != "0" || fds[1] != "1" || fds[2] != "2" {
		t.Errorf("descriptors inside = %q, want 0 1 2 (and the one ls opens)", out)
	}
}

func TestOnlyStdioReachesCommand(t *testing.T) {
	requireSandbox(t)
	for _, mode := range []Mode{ModeReadOnly, ModeWorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			host := filepath.Join(f.out, "host-file")
			fd := inheritedFD(t, host)
			r := run(t, f.policy(mode), fdScript, "LEAKFD="+strconv.Itoa(fd))
			checkOnlyStdio(t, r.out, host)
		})
	}
	t.Run("allowlist", func(t *testing.T) {
		f := newFixture(t)
		host := filepath.Join(f.out, "host-file")
		fd := inheritedFD(t, host)
		p := f.policy(ModeReadOnly)
		p.Network = NetworkAllowlist
		p.AllowHosts = []string{"example.com"}
		p.Egress = startProxy(t, p.AllowHosts)
		r := run(t, p, fdScript, "LEAKFD="+strconv.Itoa(fd))
		checkOnlyStdio(t, r.out, host)
	})
	t.Run("supervised-off", func(t *testing.T) {
		f := newFixture(t)
		host := filepath.Join(f.out, "host-file")
		fd := inheritedFD(t, host)
		c, err := Supervised(context.Background(), Policy{Workspace: f.ws}, []string{"/bin/sh", "-c", fdScript}, []string{"LEAKFD=" + strconv.Itoa(fd), "PATH=" + os.Getenv("PATH")})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		c.Stdout = &out
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		checkOnlyStdio(t, out.String(), host)
	})
}

// TestOnlyStdioReachesCommandAsNobody: the same as an unprivileged user
// (uid 65534), whose bubblewrap needs unprivileged user namespaces.
func TestOnlyStdioReachesCommandAsNobody(t *testing.T) {
	bin, dir, ws := nobodySetup(t)
	host := filepath.Join(dir, "host-file")
	must(t, os.WriteFile(host, nil, 0o644))
	must(t, os.Chown(host, 65534, 65534))
	out := runAsNobody(t, bin, dir, "__nobody-fd", ws, host)
	checkOnlyStdio(t, out, host)
}

// nobodySetup copies this test binary where uid 65534 can run it and makes
// it a workspace; it skips unless the test runs as root.
func nobodySetup(t *testing.T) (bin, dir, ws string) {
	t.Helper()
	requireSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to uid 65534")
	}
	dir = nobodyDir(t)
	bin = filepath.Join(dir, "sandbox.test")
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	must(t, err)
	must(t, os.WriteFile(bin, data, 0o755))
	if ExecHelperPath != "" {
		// Beside the binary, where the sandbox finds the exec helper of an
		// installed oceancode (the fallback run leaves it out).
		data, err := os.ReadFile(ExecHelperPath)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, ExecHelperBinary), data, 0o755))
	}
	ws = filepath.Join(dir, "ws")
	must(t, os.Mkdir(ws, 0o755))
	must(t, os.Chown(ws, 65534, 65534))
	return bin, dir, ws
}

// runAsNobody runs the copied test binary as uid 65534 and returns its
// standard output.
func runAsNobody(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s%s", err, out, stderr.String())
	}
	return string(out)
}

// TestAsNobody: for an unprivileged agent the process limit is
// RLIMIT_NPROC in the sandbox's user namespace (no cgroup), and the
// supervisor still ends a sandbox-off command's whole tree with it.
func TestAsNobody(t *testing.T) {
	bin, dir, ws := nobodySetup(t)
	t.Run("process limit", func(t *testing.T) {
		out := runAsNobody(t, bin, dir, "__nobody-spawn", ws)
		m := regexp.MustCompile(`running=(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no count in the output: %q", out)
		}
		if n, _ := strconv.Atoi(m[1]); n >= 96 || n > 32+pidsHeadroom {
			t.Errorf("%d of 96 processes ran under a limit of 32", n)
		}
	})
	t.Run("system secrets", func(t *testing.T) {
		// /etc/shadow is unreadable to uid 65534 by its mode: the plan does
		// not mask it (a mount that changes nothing), and it stays unreadable.
		out := runAsNobody(t, bin, dir, "__nobody-secrets", ws)
		if !strings.Contains(out, "RC=1") || strings.Contains(out, "root:") {
			t.Errorf("uid 65534 read a system secret in the sandbox: %q", out)
		}
		if strings.Contains(out, "MASKED") {
			t.Errorf("/etc/shadow is masked for uid 65534, which cannot read it: %q", out)
		}
	})
	t.Run("supervised tree ends", func(t *testing.T) {
		out := runAsNobody(t, bin, dir, "__nobody-supervised", ws, "setsid sleep 79.1 > /dev/null 2>&1 & ( sleep 79.2 & ) ; exit 0")
		if !strings.Contains(out, "DONE") {
			t.Fatalf("output %q", out)
		}
		if pids := append(sleepers("79.1"), sleepers("79.2")...); len(pids) > 0 {
			t.Errorf("processes outlived the supervised command: %v", pids)
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
}

// nobodyDir is a temp directory uid 65534 can enter.
func nobodyDir(t *testing.T) string {
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		must(t, os.Chmod(d, 0o755))
	}
	return dir
}

// nobodyFDMain runs fdScript in a read-only sandbox with a descriptor open
// on host (run as uid 65534 by the test above).
func nobodyFDMain(args []string) int {
	exe, _ := os.Executable()
	HelperPath, testROBinds = exe, []string{exe}
	fd, err := syscall.Open(args[1], syscall.O_WRONLY|syscall.O_APPEND, 0)
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	return runToStdout(Policy{Mode: ModeReadOnly, Workspace: args[0]}, []string{"/bin/sh", "-c", fdScript},
		[]string{"PATH=/usr/bin:/bin", "LEAKFD=" + strconv.Itoa(fd)})
}

// bgScript leaves background processes of every kind behind and exits.
func bgScript(tag string) string {
	return fmt.Sprintf(`
		sleep %[1]s.1 > /dev/null 2>&1 &
		setsid sleep %[1]s.2 > /dev/null 2>&1 &
		nohup sleep %[1]s.3 > /dev/null 2>&1 &
		( sh -c 'sleep %[1]s.4 > /dev/null 2>&1 &' & )
		exit 0`, tag)
}

func bgSleepers(tag string) []int {
	var out []int
	for _, s := range []string{".1", ".2", ".3", ".4"} {
		out = append(out, sleepers(tag+s)...)
	}
	return out
}

// TestSandboxReturnsWhenAllGone: the moment Wait returns, no process of the
// sandbox is alive (no grace period: bubblewrap reports the command's exit
// before its namespace is torn down, and Wait must wait for that).
func TestSandboxReturnsWhenAllGone(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	lock := filepath.Join(f.ws, "held.lock")
	// Besides the sleepers, each run leaves background holders of an flock
	// on a workspace file: a process releases its locks as it exits, before
	// it can be reaped, so a lock still held on the host when Wait returns
	// is a sandbox process not yet gone (the cmdline check alone misses
	// killed ones that are still exiting).
	script := bgScript("74")
	script = strings.Replace(script, "exit 0", `for i in 1 2 3 4 5 6 7 8; do setsid flock "$WS/held.lock" sleep 74.9 > /dev/null 2>&1 & done
		while flock -n "$WS/held.lock" true; do sleep 0.01; done
		exit 0`, 1)
	for i := 0; i < 10; i++ {
		r := run(t, f.policy(ModeWorkspaceWrite), script, f.env()...)
		if pids := append(bgSleepers("74"), sleepers("74.9")...); len(pids) > 0 {
			t.Fatalf("run %d: processes of the sandbox alive after Wait returned: %v\n%s", i, pids, r.errOut)
		}
		fd, err := syscall.Open(lock, syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, r.errOut)
		}
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		syscall.Close(fd)
		if err != nil {
			t.Fatalf("run %d: a sandbox process still held its lock after Wait returned: %v", i, err)
		}
	}
}

// TestSupervisedTreeEndsWithCommand: sandbox off, the supervisor ends the
// command's whole tree (setsid, nohup and double-forked ones included)
// before Wait returns, and the command's status and signal pass through.
func TestSupervisedTreeEndsWithCommand(t *testing.T) {
	ws := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH")}
	runOff := func(script string) (*exec.ExitError, error) {
		c, err := Supervised(context.Background(), Policy{Workspace: ws}, []string{"/bin/sh", "-c", script}, env)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Run()
		ee, _ := err.(*exec.ExitError)
		return ee, err
	}
	if _, err := runOff(bgScript("75")); err != nil {
		t.Fatal(err)
	}
	if pids := bgSleepers("75"); len(pids) > 0 {
		t.Errorf("processes outlived the supervised command: %v", pids)
	}
	if ee, _ := runOff("exit 7"); ee == nil || ee.ExitCode() != 7 {
		t.Errorf("exit 7 came back as %v", ee)
	}
	ee, _ := runOff("kill -TERM $$")
	if ee == nil {
		t.Fatal("a command killed by SIGTERM succeeded")
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("status %v, want killed by SIGTERM", ee)
	}
	// The marker names this process.
	c, err := Supervised(context.Background(), Policy{Workspace: ws}, []string{"/bin/sh", "-c", "echo $" + AgentMarker}, env)
	must(t, err)
	out, err := c.Output()
	must(t, err)
	if !strings.HasPrefix(string(out), strconv.Itoa(os.Getpid())+":") {
		t.Errorf("%s = %q, want this agent's pid:start", AgentMarker, out)
	}
}

// TestSupervisedCancelKillsTree: cancelling the context (a timeout) ends
// the whole tree, not just the shell.
func TestSupervisedCancelKillsTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Supervised(ctx, Policy{Workspace: t.TempDir()}, []string{"/bin/sh", "-c", "setsid sleep 76.1 & sleep 76.2"}, []string{"PATH=" + os.Getenv("PATH")})
	must(t, err)
	must(t, c.Start())
	waitFor(t, func() bool { return len(sleepers("76.1")) > 0 && len(sleepers("76.2")) > 0 }, "the sleepers to start")
	cancel()
	c.Wait()
	if pids := append(sleepers("76.1"), sleepers("76.2")...); len(pids) > 0 {
		t.Errorf("processes outlived the cancelled command: %v", pids)
	}
}

// TestSupervisedTreeEndsWithKilledAgent: an agent killed with SIGKILL
// mid-command takes the command's whole tree with it.
func TestSupervisedTreeEndsWithKilledAgent(t *testing.T) {
	agent := startAgent(t, "__agent-off", t.TempDir(), "/bin/sh", "-c",
		"setsid sleep 77.1 > /dev/null 2>&1 & nohup sleep 77.2 > /dev/null 2>&1 & ( sleep 77.3 & ) ; sleep 77.4")
	all := func() []int {
		var p []int
		for _, s := range []string{"77.1", "77.2", "77.3", "77.4"} {
			p = append(p, sleepers(s)...)
		}
		return p
	}
	waitFor(t, func() bool { return len(all()) == 4 }, "the four sleepers to start")
	must(t, agent.Process.Kill())
	agent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for len(all()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := all(); len(pids) > 0 {
		t.Errorf("the command's processes survived the killed agent: %v", pids)
	}
}

// TestLeftovers: a process whose marker names a gone agent is listed; one
// whose agent runs is not.
func TestLeftovers(t *testing.T) {
	start := func(marker, arg string) int {
		c := exec.Command("sleep", arg)
		c.Env = []string{AgentMarker + "=" + marker}
		must(t, c.Start())
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c.Process.Pid
	}
	gone := exec.Command("true")
	must(t, gone.Run())
	orphan := start(strconv.Itoa(gone.Process.Pid)+":1", "78.1")
	live := start(selfMarker(), "78.2")
	found := map[int]Leftover{}
	for _, l := range Leftovers() {
		found[l.PID] = l
	}
	if l, ok := found[orphan]; !ok || l.AgentPID != gone.Process.Pid || l.Command != "sleep 78.1" {
		t.Errorf("the orphan %d is not listed right: %+v", orphan, found)
	}
	if _, ok := found[live]; ok {
		t.Errorf("a process of this live agent is listed as left over")
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startProxy(t *testing.T, allow []string) *egress.Proxy {
	t.Helper()
	proxy, err := egress.New(egress.Config{Allow: allow})
	must(t, err)
	must(t, proxy.Start())
	t.Cleanup(func() { proxy.Close() })
	return proxy
}

// gitRepos lays out, in a fresh fixture's workspace, a real repository with
// a nested repository (vendor/lib), a submodule (sub, git dir in
// .git/modules/sub) and a linked worktree inside the workspace (wt2, a .git
// file pointing to .git/worktrees/wt2); every repository has one commit.
// It returns the fixture, the git dirs and a git runner.
func gitRepos(t *testing.T) (fixture, []string, func(dir string, args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	f := newFixture(t)
	must(t, os.RemoveAll(f.ws+"/.git"))
	env := append(os.Environ(), gitTestEnv...)
	g := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", dir, "-c", "protocol.file.allow=always"}, args...)...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	upstream := filepath.Join(f.base, "upstream")
	for _, d := range []string{f.ws, f.ws + "/vendor/lib", upstream} {
		must(t, os.MkdirAll(d, 0o755))
		g(d, "init", "-q", "-b", "main")
		write(t, d+"/README", "readme\n")
		g(d, "add", "README")
		g(d, "commit", "-q", "-m", "first")
	}
	write(t, f.ws+"/.gitignore", "vendor/\n")
	g(f.ws, "submodule", "add", "-q", upstream, "sub")
	g(f.ws, "commit", "-q", "-am", "submodule")
	g(f.ws, "worktree", "add", "-q", "-b", "side", f.ws+"/wt2")
	// Pack everything, as a clone is: the history is in packs and packed refs.
	for _, d := range []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub"} {
		g(d, "gc", "-q")
	}
	dirs := []string{f.ws + "/.git", f.ws + "/vendor/lib/.git", f.ws + "/.git/modules/sub", f.ws + "/.git/worktrees/wt2"}
	for _, d := range dirs {
		must(t, os.MkdirAll(d+"/info", 0o755))
	}
	return f, dirs, g
}

var gitTestEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1"}

// TestGitDirsProtected: every git dir in the workspace — the top-level
// one, a nested repository's, a submodule's and a linked worktree's — has
// its hooks, config and info/ write-protected, and no .git can be removed,
// renamed or replaced; the repositories still work on the host afterwards.
func TestGitDirsProtected(t *testing.T) {
	requireSandbox(t)
	f, dirs, _ := gitRepos(t)
	configs, hooks := map[string]string{}, map[string]bool{}
	for _, d := range dirs {
		configs[d], hooks[d] = read(d+"/config"), isDir(d+"/hooks")
	}
	gitFiles := map[string]string{f.ws + "/sub/.git": read(f.ws + "/sub/.git"), f.ws + "/wt2/.git": read(f.ws + "/wt2/.git")}
	var attack strings.Builder
	for _, d := range dirs {
		fmt.Fprintf(&attack, `
			echo evil > %[1]s/hooks/pre-commit; chmod +x %[1]s/hooks/pre-commit
			echo '[core] fsmonitor=evil' >> %[1]s/config
			echo '* diff=evil' > %[1]s/info/attributes
			echo evil > %[1]s/info/exclude
			rm -rf %[1]s/hooks %[1]s/info
			mv %[1]s/config %[1]s/config.old
			`, d)
	}
	attack.WriteString(`
		cd "$WS"
		echo 'gitdir: /tmp/evil' > sub/.git; rm -f sub/.git; mv wt2/.git wt2/git-moved; ln -sf /tmp wt2/.git
		mv vendor/lib/.git vendor/lib/git-moved; rm -rf vendor/lib/.git; ln -s /tmp vendor/lib/.git
		mv vendor vendor-moved
		mv .git .git-moved; rm -rf .git; ln -sfn /tmp .git
		exit 0`)
	r := run(t, f.policy(ModeWorkspaceWrite), attack.String(), f.env()...)
	for _, d := range dirs {
		absent(t, d+"/hooks/pre-commit")
		absent(t, d+"/info/attributes")
		absent(t, d+"/config.old")
		unchanged(t, d+"/config", configs[d])
		if hooks[d] && !isDir(d+"/hooks") {
			t.Errorf("%s/hooks was removed", d)
		}
	}
	for p, want := range gitFiles {
		unchanged(t, p, want)
	}
	for _, p := range []string{f.ws + "/.git-moved", f.ws + "/vendor-moved", f.ws + "/vendor/lib/git-moved", f.ws + "/wt2/git-moved"} {
		absent(t, p)
	}
	// Each repository still has its history on the host.
	for _, d := range []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub", f.ws + "/wt2"} {
		c := exec.Command("git", "-C", d, "log", "--oneline", "-1")
		if out, err := c.CombinedOutput(); err != nil || !strings.Contains(string(out), "first") && !strings.Contains(string(out), "submodule") {
			t.Errorf("git log in %s after the attack: %s %v", d, out, err)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", r.errOut)
	}
}

// TestGitWorksInWorkspaceWrite: with every git dir protected, git commit,
// branch, checkout and stash still work in each repository.
func TestGitWorksInWorkspaceWrite(t *testing.T) {
	requireSandbox(t)
	f, _, g := gitRepos(t)
	r := run(t, f.policy(ModeWorkspaceWrite), `
		set -e
		n=0
		for d in "$WS" "$WS/vendor/lib" "$WS/sub" "$WS/wt2"; do
			cd "$d"; n=$((n+1))
			echo change >> README
			git commit -q -am inside
			git checkout -q -b topic$n
			echo more >> README
			git stash -q
			git stash pop -q
			git commit -q -am again
		done
		echo ALL-OK`, append(f.env(), gitTestEnv...)...)
	if !strings.Contains(r.out, "ALL-OK") {
		t.Fatalf("git failed inside the sandbox:\n%s%s", r.out, r.errOut)
	}
	for i, d := range []string{f.ws, f.ws + "/vendor/lib", f.ws + "/sub", f.ws + "/wt2"} {
		if out := g(d, "log", "--oneline", fmt.Sprintf("topic%d", i+1)); !strings.Contains(out, "again") || !strings.Contains(out, "inside") {
			t.Errorf("commits made inside are missing in %s: %q", d, out)
		}
	}
}

// TestHelperPathRefusesTestBinary: a test binary without HelperPath is not
// used as the helper (it would run its own tests again, recursively) —
// with no exec helper installed either, so the Go helper is the one a
// supervised command would need.
func TestHelperPathRefusesTestBinary(t *testing.T) {
	self := filepath.Join(t.TempDir(), "agent.test")
	old, oldHelper, oldExec := osExecutable, HelperPath, ExecHelperPath
	osExecutable = func() (string, error) { return self, nil }
	HelperPath, ExecHelperPath = "", ""
	defer func() { osExecutable, HelperPath, ExecHelperPath = old, oldHelper, oldExec }()
	if got, err := helperPath(); err == nil {
		t.Errorf("a test binary was taken as the helper: %s", got)
	}
	if _, err := Supervised(t.Context(), Policy{Workspace: t.TempDir()}, []string{"true"}, nil); err == nil {
		t.Error("Supervised started a command with a test binary as its supervisor")
	}
}
