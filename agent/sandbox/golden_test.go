package sandbox

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fakeFileInfo is a minimal fs.FileInfo for the fake system locations.
type fakeFileInfo struct {
	name string
	dir  bool
}

func (f fakeFileInfo) Name() string { return f.name }
func (f fakeFileInfo) Size() int64  { return 0 }
func (f fakeFileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (f fakeFileInfo) ModTime() time.Time { return time.Time{} }
func (f fakeFileInfo) IsDir() bool        { return f.dir }
func (f fakeFileInfo) Sys() any           { return nil }

// pinSystem replaces the probes of fixed system locations with a fixed
// Debian-like host, so the golden files do not depend on this machine.
func pinSystem(t *testing.T) {
	dirs := map[string]bool{"/var/tmp": true, "/run": true}
	files := map[string]bool{"/etc/shadow": true, "/etc/gshadow": true, "/etc/ssh/ssh_host_ed25519_key": true}
	oldL, oldE, oldG, oldB := sysLstat, sysEvalSymlinks, sysGlob, testROBinds
	t.Cleanup(func() { sysLstat, sysEvalSymlinks, sysGlob, testROBinds = oldL, oldE, oldG, oldB })
	testROBinds = nil
	sysLstat = func(p string) (fs.FileInfo, error) {
		if dirs[p] || files[p] {
			return fakeFileInfo{name: filepath.Base(p), dir: dirs[p]}, nil
		}
		return nil, fs.ErrNotExist
	}
	sysEvalSymlinks = func(p string) (string, error) {
		if p == "/etc/resolv.conf" {
			return "/run/systemd/resolve/stub-resolv.conf", nil
		}
		return p, nil
	}
	sysGlob = func(pattern string) ([]string, error) {
		var out []string
		for f := range files {
			if ok, _ := filepath.Match(pattern, f); ok {
				out = append(out, f)
			}
		}
		return out, nil
	}
}

// goldenFixture builds a workspace and a home under a temp root; the root
// is written as $ROOT in the golden files.
func goldenFixture(t *testing.T) (root, ws, home string) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(root, "ws")
	home = filepath.Join(root, "home")
	for _, d := range []string{ws + "/.git/hooks", ws + "/secrets", ws + "/sub", home + "/.ssh", home + "/.cache", home + "/go/pkg/mod", home + "/extra", home + "/.config/gh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/.git/HEAD", ws + "/.git/config", ws + "/.bashrc", home + "/.netrc", home + "/.aws-real"} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home+"/.aws-real", home+"/.aws"); err != nil {
		t.Fatal(err)
	}
	return root, ws, home
}

func renderGolden(root string, p Policy, env Env) (string, error) {
	pl, err := buildPlan(p, env)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# bwrap\n")
	for i, a := range pl.args {
		if i > 0 && strings.HasPrefix(a, "--") {
			b.WriteString("\n")
		} else if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(a)
	}
	if pl.exec {
		ea, err := pl.helper.ExecArgs()
		if err != nil {
			return "", err
		}
		b.WriteString("\n-- " + env.ExecHelper + " " + strings.Join(ea, " ") + " CMD...\n")
	} else {
		b.WriteString("\n-- " + env.Helper + " " + HelperArg + " " + strings.Join(pl.helper.Args(), " ") + " CMD...\n")
	}
	b.WriteString("\n# placeholders (created for the command, removed after)\n")
	for _, ph := range pl.placeholders {
		kind := "file"
		if ph.Dir {
			kind = "dir"
		}
		b.WriteString(kind + " " + ph.Path + "\n")
	}
	b.WriteString("\n# landlock\n" + landlockText(pl.helper.Landlock, env.LandlockABI))
	b.WriteString("\n# describe\n" + p.Describe() + "\n")
	return strings.ReplaceAll(b.String(), root, "$ROOT"), nil
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got; go test -update rewrites):\n%s", path, diff)
	}
}

func TestGoldenBwrapArgsAndLandlock(t *testing.T) {
	pinSystem(t)
	root, ws, home := goldenFixture(t)
	helper := "/opt/oceancode/bin/oceancode"
	env := Env{Helper: helper, ExecHelper: "/opt/oceancode/bin/oceancode-sandbox-exec", Home: home, LandlockABI: 7}
	cases := []struct {
		name string
		p    Policy
		env  Env
	}{
		{"workspace-write", Policy{
			Enabled: true, Workspace: ws, Dir: "sub",
			Deny: []string{"secrets"}, DenyRead: []string{"~/extra"}, Writable: []string{"~/go"},
		}, env},
		{"read-only-network-on", Policy{
			Mode: ModeReadOnly, Workspace: ws, Network: NetworkOn, TempDir: filepath.Join(root, "session-tmp"),
			Limits: Limits{Processes: 64, AddressSpaceMB: -1, FileSizeMB: 10, OpenFiles: 256},
		}, env},
		{"allowlist-no-landlock", Policy{
			Mode: ModeWorkspaceWrite, Workspace: ws, Network: NetworkAllowlist, AllowHosts: []string{"proxy.golang.org:443", "*.githubusercontent.com"},
		}, Env{Helper: helper, Home: home, LandlockABI: 0, EgressSocket: "/tmp/oceancode-egress-1234/proxy.sock", Getenv: func(k string) string {
			if k == "GOMODCACHE" {
				return home + "/go/pkg/mod"
			}
			return ""
		}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "read-only-network-on" {
				if err := os.MkdirAll(c.p.TempDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			got, err := renderGolden(root, c.p, c.env)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name, got)
			// BwrapArgs is the same argument list.
			args, err := BwrapArgs(c.p, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ReplaceAll(got, "\n", " "), strings.ReplaceAll(strings.Join(args[:6], " "), root, "$ROOT")) {
				t.Errorf("BwrapArgs differs from the plan")
			}
		})
	}
}

// TestNoCapabilityOnAnyPath: whatever the mode, the network and the
// helper (the exec helper, or the Go helper: without the exec helper, and
// always for a network allowlist), bubblewrap gets --disable-userns and
// no --cap-add (the helpers make no mount, so none holds a capability),
// and the exec helper's arguments carry only limits and Landlock.
func TestNoCapabilityOnAnyPath(t *testing.T) {
	pinSystem(t)
	_, ws, home := goldenFixture(t)
	for _, mode := range []Mode{ModeWorkspaceWrite, ModeReadOnly} {
		for _, net := range []Network{NetworkOff, NetworkOn, NetworkAllowlist} {
			for _, eh := range []string{"/opt/oceancode/bin/oceancode-sandbox-exec", ""} {
				p := Policy{Mode: mode, Workspace: ws, Network: net, AllowHosts: []string{"proxy.golang.org:443"}}
				env := Env{Helper: "/opt/oceancode/bin/oceancode", ExecHelper: eh, Home: home, LandlockABI: 7, EgressSocket: "/tmp/egress/proxy.sock"}
				pl, err := buildPlan(p, env)
				if err != nil {
					t.Fatalf("%s %s %q: %v", mode, net, eh, err)
				}
				args := " " + strings.Join(pl.args, " ") + " "
				if !strings.Contains(args, " --unshare-user --disable-userns ") || strings.Contains(args, "--cap-add") || !strings.Contains(args, " --cap-drop ALL ") {
					t.Errorf("%s %s %q: bubblewrap's arguments: %s", mode, net, eh, args)
				}
				if pl.exec {
					a, err := pl.helper.ExecArgs()
					if err != nil {
						t.Fatal(err)
					}
					for _, x := range a {
						if strings.HasPrefix(x, "--") && !strings.HasPrefix(x, "--landlock") && x != "--rule" && x != "--" &&
							x != "--nproc" && x != "--as" && x != "--fsize" && x != "--nofile" {
							t.Errorf("%s %s: the exec helper gets %s", mode, net, x)
						}
					}
				}
			}
		}
	}
}

func TestGoldenWorktree(t *testing.T) {
	pinSystem(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, wt, home := filepath.Join(root, "repo"), filepath.Join(root, "wt"), filepath.Join(root, "home")
	os.MkdirAll(home, 0o755)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", repo},
		{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"},
		{"-C", repo, "worktree", "add", "-q", "-b", "f", wt},
	} {
		c := exec.Command("git", args...)
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	got, err := renderGolden(root, Policy{Enabled: true, Workspace: wt}, Env{Helper: "/opt/oceancode/bin/oceancode", Home: home, LandlockABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "worktree", got)
}

func TestGoldenSBPL(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Policy
	}{
		{"sbpl-workspace-write", Policy{Enabled: true, Workspace: "/Users/dev/project", Deny: []string{"secrets"}, DenyRead: []string{"~/private"}, Writable: []string{"~/shared"}}},
		{"sbpl-read-only-allowlist", Policy{Mode: ModeReadOnly, Workspace: "/Users/dev/pro\"ject", Network: NetworkAllowlist, AllowHosts: []string{"github.com"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SBPLProfile(c.p, MacEnv{Home: "/Users/dev", TempDirs: []string{"/private/tmp", "/private/var/folders/xy/T"}})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name, got)
		})
	}
}

func TestPolicyResolution(t *testing.T) {
	cases := []struct {
		p       Policy
		mode    Mode
		confine bool
	}{
		{Policy{}, "", false},
		{Policy{Enabled: true}, ModeWorkspaceWrite, true},
		{Policy{Mode: ModeReadOnly}, ModeReadOnly, true},
		{Policy{Enabled: true, Mode: ModeDangerFullAccess}, ModeDangerFullAccess, false},
	}
	for _, c := range cases {
		if got := c.p.EffectiveMode(); got != c.mode {
			t.Errorf("%+v: mode %q, want %q", c.p, got, c.mode)
		}
		if got := c.p.Confined(); got != c.confine {
			t.Errorf("%+v: confined %v", c.p, got)
		}
	}
	for _, bad := range []Policy{
		{Mode: "yolo"},
		{Enabled: true, Network: "sometimes", Workspace: "/w"},
		{Enabled: true, Workspace: "rel"},
		{Enabled: true, Workspace: "/"},
		{Enabled: true, Workspace: "/w", AllowHosts: []string{"a b"}},
		{Enabled: true, Workspace: "/w", Network: NetworkAllowlist, AllowHosts: []string{"*"}},
		{Enabled: true, Workspace: "/w", Network: NetworkAllowlist, AllowHosts: []string{"https://github.com"}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
	if got := (Policy{Limits: Limits{Processes: -1}}).EffectiveLimits(); got.Processes != 0 || got.OpenFiles != DefaultLimits.OpenFiles {
		t.Errorf("EffectiveLimits = %+v", got)
	}
	if d := (Policy{Enabled: true, Network: NetworkAllowlist, AllowHosts: []string{"github.com"}}).Describe(); !strings.Contains(d, "filtered through the session's egress proxy, to github.com") || strings.Contains(d, "egress open") {
		t.Errorf("Describe = %q", d)
	}
	if d := (Policy{Enabled: true, Network: NetworkAllowlist}).Describe(); !strings.Contains(d, "to no host") {
		t.Errorf("Describe = %q", d)
	}
	if w, err := (Support{OS: "linux"}).Check(Policy{Enabled: true, Workspace: "/w", Network: NetworkAllowlist}); err != nil || len(w) != 0 {
		t.Errorf("Check on linux = %q, %v; want no warning (enforced)", w, err)
	}
	if w, _ := (Support{OS: "darwin"}).Check(Policy{Enabled: true, Workspace: "/w", Network: NetworkAllowlist}); len(w) != 1 || !strings.Contains(w[0], "not enforced on macOS") {
		t.Errorf("Check on darwin = %q", w)
	}
}

// TestHelperBind: the helper gets its own read-only bind only when a mount
// of the plan hides it (a temp directory, /run, a TMPDIR tmpfs).
func TestHelperBind(t *testing.T) {
	pinSystem(t)
	root, ws, home := goldenFixture(t)
	tmpdir := filepath.Join(root, "tmpdir")
	if err := os.MkdirAll(tmpdir, 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "TMPDIR" {
			return tmpdir
		}
		return ""
	}
	for _, tc := range []struct {
		helper string
		want   bool
	}{
		{"/opt/oceancode/bin/oceancode-sandbox", false},
		{"/usr/lib/oceancode/oceancode-sandbox", false},
		{"/tmp/build-1/oceancode-sandbox", true},
		{"/var/tmp/oceancode-sandbox", true},
		{"/run/oceancode/oceancode-sandbox", true},
		{tmpdir + "/b/oceancode-sandbox", true},
		{"/tmpfoo/oceancode-sandbox", false},
	} {
		pl, err := buildPlan(Policy{Mode: ModeWorkspaceWrite, Workspace: ws}, Env{Helper: tc.helper, Home: home, Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		bind := "--ro-bind " + tc.helper + " " + tc.helper
		if got := strings.Contains(strings.Join(pl.args, " "), bind); got != tc.want {
			t.Errorf("helper %s: bound = %v, want %v", tc.helper, got, tc.want)
		}
	}
}
