// Package hermetictest keeps tests off the machine they run on: every path
// the programs resolve by default — the user's home, XDG config, state,
// cache and data dirs (the session store, crash reports, anti-rollback state
// and last-known-good policy live there), and the OS managed dir
// /etc/oceancode — is named explicitly, below t.TempDir(). A policy deployed
// on a developer's laptop cannot change a test's outcome, and no test writes
// into the real user's files (docs/testing.md).
//
// It imports only the standard library, so agent/... tests may use it too.
package hermetictest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildTag is the build tag of the test builds of the binaries: only such a
// build honours EnvManagedDir (layers.TestBuildTag; a layers test keeps the
// two equal).
const BuildTag = "oceancodetest"

// EnvManagedDir names the managed dir for test builds (layers.EnvTestManagedDir).
const EnvManagedDir = "OC_TEST_MANAGED_DIR"

// EnvScratch names a directory Scratch creates its directories in.
const EnvScratch = "OC_TEST_SCRATCH"

// Paths are the default paths of one simulated user, all below one
// temporary directory.
type Paths struct {
	Root       string
	Home       string // $HOME
	ConfigHome string // $XDG_CONFIG_HOME
	StateHome  string // $XDG_STATE_HOME
	CacheHome  string // $XDG_CACHE_HOME
	DataHome   string // $XDG_DATA_HOME
	ManagedDir string // the managed dir of test builds ($OC_TEST_MANAGED_DIR); empty
}

// New lays out a fresh user below t.TempDir(); the directories exist and
// are empty.
func New(t testing.TB) Paths {
	t.Helper()
	return At(t, t.TempDir())
}

// At lays out a fresh user below root.
func At(t testing.TB, root string) Paths {
	t.Helper()
	home := filepath.Join(root, "home")
	p := Paths{Root: root, Home: home,
		ConfigHome: filepath.Join(home, ".config"), StateHome: filepath.Join(home, ".local", "state"),
		CacheHome: filepath.Join(home, ".cache"), DataHome: filepath.Join(home, ".local", "share"),
		ManagedDir: filepath.Join(root, "etc", "oceancode")}
	for _, d := range []string{p.ConfigHome, p.StateHome, p.CacheHome, p.DataHome, p.ManagedDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// Vars are the variables that name the paths.
func (p Paths) Vars() map[string]string {
	return map[string]string{"HOME": p.Home, "XDG_CONFIG_HOME": p.ConfigHome, "XDG_STATE_HOME": p.StateHome,
		"XDG_CACHE_HOME": p.CacheHome, "XDG_DATA_HOME": p.DataHome, EnvManagedDir: p.ManagedDir}
}

// Env returns base (e.g. os.Environ()) for a child process: without the
// variables that name a user's paths or configure oceancode (HOME, XDG_*,
// OC_*), then with p's paths and extra appended.
func (p Paths) Env(base []string, extra ...string) []string {
	out := make([]string, 0, len(base)+8+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if owned(k) {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", EnvManagedDir} {
		out = append(out, k+"="+p.Vars()[k])
	}
	return append(out, extra...)
}

// owned reports whether the variable k names a user path or configures
// oceancode, so a child must not inherit it from the developer's shell.
func owned(k string) bool {
	return k == "HOME" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "OC_")
}

// Getenv reads p's variables and nothing else: the environment of an
// in-process command (cliapp.App.Getenv).
func (p Paths) Getenv(k string) string { return p.Vars()[k] }

// Setenv points this process's HOME and XDG_* at p for the rest of the test
// (t.Setenv: not with t.Parallel) and unsets every OC_* variable.
func (p Paths) Setenv(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OC_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	for k, v := range p.Vars() {
		t.Setenv(k, v)
	}
}

// Scratch returns a new empty directory, removed when the test ends, that
// the sandbox shows as the host's own: not below /tmp, /var/tmp or $TMPDIR
// (each a private tmpfs inside the sandbox) and never in the real home.
// Sandbox tests put their workspace and the "outside" they must not reach
// there. It is made in $OC_TEST_SCRATCH when set, else in the package's
// directory (go test's working directory; the name starts with a dot, so
// the go command ignores it), or — when the checkout itself is below one of
// those directories — in ScratchFallback. It holds an empty .oceancode/, so the CLI
// takes it as the project root and never reads the enclosing checkout's
// project config.
func Scratch(t testing.TB) string {
	t.Helper()
	parent := os.Getenv(EnvScratch)
	if parent == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		parent = wd
	}
	parent, err := filepath.EvalSymlinks(parent)
	if err != nil {
		t.Fatalf("scratch directory: %v", err)
	}
	if tmp := privateTmp(parent); tmp != "" {
		if os.Getenv(EnvScratch) != "" {
			t.Fatalf("scratch directory %s ($%s) is below %s, which the sandbox replaces with a private tmpfs: set %s to a writable directory elsewhere", parent, EnvScratch, tmp, EnvScratch)
		}
		// A checkout below /tmp (a CI clone): fall back to a directory of
		// our own outside every private tmpfs.
		parent = ScratchFallback
		if err := os.MkdirAll(parent, 0o755); err != nil {
			t.Fatalf("scratch directory: the package directory is below %s, which the sandbox replaces with a private tmpfs, and %s cannot be made (%v): set %s to a writable directory outside /tmp", tmp, ScratchFallback, err, EnvScratch)
		}
	}
	dir, err := os.MkdirTemp(parent, ".oc-scratch-")
	if err != nil {
		t.Fatalf("scratch directory (set %s to a writable directory outside /tmp): %v", EnvScratch, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Mkdir(filepath.Join(dir, ".oceancode"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ScratchFallback is where Scratch makes its directories when the checkout
// lies below a directory the sandbox replaces (/tmp, /var/tmp, $TMPDIR).
const ScratchFallback = "/var/lib/oceancode-test-scratch"

// privateTmp returns the directory among /tmp, /var/tmp and $TMPDIR that
// dir is (or is below), or "".
func privateTmp(dir string) string {
	for _, tmp := range []string{"/tmp", "/var/tmp", os.Getenv("TMPDIR")} {
		if tmp == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(tmp); err == nil && (dir == r || strings.HasPrefix(dir, r+string(filepath.Separator))) {
			return tmp
		}
	}
	return ""
}

// GoBuild builds the main package pkg into out as a test build (with
// BuildTag, so the binary honours EnvManagedDir) and otherwise as make build
// does (CGO_ENABLED=0). The go command keeps its own environment (build
// cache, module cache).
func GoBuild(t testing.TB, out, pkg string, args ...string) {
	t.Helper()
	argv := append([]string{"build", "-tags", BuildTag}, args...)
	argv = append(argv, "-o", out, pkg)
	cmd := exec.Command("go", argv...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}
