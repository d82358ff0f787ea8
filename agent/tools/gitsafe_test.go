package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/childenv"
	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/internal/gitquery"
)

// hostileRepo builds a repository whose configuration, attributes, hooks
// and environment name a marker program for every key git runs a program
// from. The marker appends its first argument to marker. It returns the
// repository, a nested repository inside it configured the same way, and
// the marker file.
func hostileRepo(t *testing.T) (repo, nested, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required: ", err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	marker = filepath.Join(base, "marker")
	mark := filepath.Join(base, "mark")
	// It reads stdin like a filter would, so git never sees a broken pipe,
	// except as a filter process or a transport, where git waits for its
	// answer: it exits at once.
	writeExec(t, mark, "#!/bin/sh\necho \"$1\" >> '"+marker+"'\ncase $1 in process|ext|uploadpack|sshCommand) exit 0 ;; esac\ncat >/dev/null 2>&1\nexit 0\n")
	hooks := filepath.Join(base, "hooks")
	for _, h := range []string{"post-index-change", "reference-transaction", "pre-commit", "post-checkout", "fsmonitor-watchman", "pre-auto-gc"} {
		writeExec(t, filepath.Join(hooks, h), "#!/bin/sh\n'"+mark+"' hook-"+h+"\n")
	}
	// The environment names programs too.
	for _, k := range []string{"GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND"} {
		t.Setenv(k, mark+" env-"+k)
	}
	repo = filepath.Join(base, "repo")
	nested = filepath.Join(repo, "nested")
	// A submodule: git status and diff look into it with a child git that
	// the PATH shim does not start.
	subsrc := filepath.Join(base, "subsrc")
	gitT(t, subsrc, "init", "-q", subsrc)
	writeFile(t, filepath.Join(subsrc, "f.txt"), "one\ntwo\n")
	writeFile(t, filepath.Join(subsrc, "g.txt"), "same\n")
	writeFile(t, filepath.Join(subsrc, ".gitattributes"), "* diff=evil filter=evil merge=evil\n")
	gitT(t, subsrc, "add", "f.txt", "g.txt", ".gitattributes")
	gitT(t, subsrc, "commit", "-qm", "one")
	sub := filepath.Join(repo, "sub")
	for _, r := range []string{repo, nested, sub} {
		if r != sub {
			gitT(t, r, "init", "-q", r)
			writeFile(t, filepath.Join(r, "f.txt"), "one\ntwo\n")
			writeFile(t, filepath.Join(r, "g.txt"), "same\n")
			writeFile(t, filepath.Join(r, ".gitattributes"), "* diff=evil filter=evil merge=evil\n")
			gitT(t, r, "add", "f.txt", "g.txt", ".gitattributes")
			gitT(t, r, "commit", "-qm", "one")
			if r == repo {
				gitT(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subsrc, "sub")
				gitT(t, repo, "commit", "-qm", "sub")
			}
			writeFile(t, filepath.Join(r, "f.txt"), "one\ntwo\nthree\n")
			gitT(t, r, "stash", "-q")
			gitT(t, r, "tag", "v1")
		}
		writeFile(t, filepath.Join(r, "f.txt"), "one\n2\n")
		for _, kv := range [][2]string{
			{"core.fsmonitor", mark + " fsmonitor"},
			{"core.pager", mark + " core.pager"},
			{"pager.log", mark + " pager.log"},
			{"pager.diff", mark + " pager.diff"},
			{"pager.status", mark + " pager.status"},
			{"core.hooksPath", hooks},
			{"core.sshCommand", mark + " sshCommand"},
			{"core.askPass", mark + " askPass"},
			{"core.editor", mark + " editor"},
			{"diff.external", mark + " diff.external"},
			{"diff.evil.textconv", mark + " textconv"},
			{"diff.evil.cachetextconv", "true"},
			{"diff.evil.command", mark + " diff.command"},
			{"filter.evil.clean", mark + " clean"},
			{"filter.evil.smudge", mark + " smudge"},
			{"filter.evil.process", mark + " process"},
			{"filter.evil.required", "true"},
			{"merge.evil.driver", mark + " merge"},
			{"credential.helper", "!" + mark + " credential"},
			{"gpg.program", mark + " gpg"},
			{"gpg.openpgp.program", mark + " gpg-openpgp"},
			{"gpg.ssh.program", mark + " gpg-ssh"},
			{"log.showSignature", "true"},
			{"protocol.ext.allow", "always"},
			{"remote.origin.url", "ext::" + mark + " ext"},
			{"remote.origin.uploadpack", mark + " uploadpack"},
			{"status.showUntrackedFiles", "all"},
			{"diff.submodule", "diff"},
			{"status.submoduleSummary", "true"},
			{"submodule.sub.ignore", "none"},
			{"core.alternateRefsCommand", mark + " alternateRefs"},
		} {
			gitT(t, r, "config", kv[0], kv[1])
		}
		// Racy entries: same size, new mtime, so git must read (and clean) them.
		future := time.Now().Add(time.Hour)
		for _, f := range []string{"g.txt", "f.txt"} {
			if err := os.Chtimes(filepath.Join(r, f), future, future); err != nil {
				t.Fatal(err)
			}
		}
	}
	return repo, nested, marker
}

// writeExec writes an executable file.
func writeExec(t *testing.T, p, s string) {
	t.Helper()
	writeFile(t, p, s)
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitT runs git for the test's setup, before the hostile configuration.
func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "GIT_EXTERNAL_DIFF=", "GIT_EDITOR=true")
	if args[0] == "init" {
		cmd.Dir = filepath.Dir(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitSafeCommands are safe-listed git commands, in the shapes the shell guard
// approves (wrappers, nested scripts, other directories).
var gitSafeCommands = []string{
	"git status", "git status -v", "git status -vv", "git status --porcelain", "git status --short --branch",
	"git diff", "git diff --stat", "git diff HEAD", "git diff --cached", "git diff v1", "git diff --no-index f.txt g.txt || true",
	"git log -p", "git log -p --stat -3", "git log --show-signature", "git log --oneline --graph --all",
	"git log -p -S two", "git log -p -G one", "git log --format=%H -1",
	"git show", "git show HEAD:f.txt", "git show --stat v1", "git whatchanged -p -1",
	"git blame f.txt", "git annotate f.txt", "git blame -L 1,2 f.txt",
	"git grep one", "git grep -n one -- '*.txt'", "git grep --cached one", "git grep one HEAD",
	"git stash list", "git stash list -p", "git stash show", "git stash show -p", "git stash show -p stash@{0}",
	"git reflog", "git reflog -p -1", "git reflog show -p -1",
	"git diff-files -p", "git diff-index -p HEAD", "git diff-tree -p HEAD", "git diff-tree -p -r --root HEAD",
	"git ls-files -m", "git ls-files --others", "git ls-files -s", "git cat-file -p HEAD", "git cat-file -p HEAD:f.txt",
	"git shortlog -sn HEAD", "git branch -vv", "git branch --list", "git tag -l", "git describe --always --dirty",
	"git describe --tags", "git describe --broken --always", "git status --ignored", "git ls-files --recurse-submodules", "git grep --recurse-submodules one", "git rev-parse HEAD", "git rev-list --count HEAD", "git for-each-ref", "git show-ref",
	"git check-attr -a f.txt", "git check-ignore -v x || true", "git config --list", "git config --get core.pager",
	"git remote -v", "git remote show origin || true", "git remote show -n origin", "git remote get-url origin", "git count-objects -v", "git merge-base HEAD HEAD", "git name-rev HEAD", "git show-branch",
	"git ls-tree -r HEAD", "git worktree list", "git version", "git var -l",
	"git --no-pager log -p -1", "git -P diff", "git --no-optional-locks status",
	"env git status", "env FOO=1 git diff", "timeout 20 git diff", "nice git log -p -1", "command git diff",
	"bash -c 'git diff'", "sh -c 'git status && git log -p -1'", "git status && git diff | cat",
	"cd nested && git diff", "cd nested && git status", "git -C nested diff", "git -C nested log -p",
	"git -C nested status -v", "(cd nested; git blame f.txt)", "for d in . nested; do git -C $d diff; done",
	"env -S'git diff'", "eval 'git diff'", "git diff; git status",
}

// TestSafeGitRunsNoConfiguredProgram: after the bash tool runs each
// safe-listed git command in a repository whose configuration, attributes,
// hooks and environment name a marker program, the marker never appears.
func TestSafeGitRunsNoConfiguredProgram(t *testing.T) {
	repo, _, marker := hostileRepo(t)
	g, err := shellguard.New(shellguard.Config{})
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	env.Boundary.ProjectRoot, env.Cwd = repo, repo
	env.ChildEnv = childenv.Compose(os.Environ(), childenv.Config{})

	// The test can fail: the same command without the overrides runs the
	// marker (the configured fsmonitor, textconv, filters, external diff).
	for _, c := range []string{"git status", "git diff", "git log -p -1"} {
		os.Remove(marker)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", c)
		cmd.Dir, cmd.Env = repo, env.ChildEnv
		cmd.WaitDelay = time.Second
		cmd.CombinedOutput()
		cancel()
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("control: %q without overrides ran no marker; the test would prove nothing", c)
		}
	}

	for _, c := range gitSafeCommands {
		if r := g.Classify(c, repo); r.Verdict != shellguard.Safe {
			t.Errorf("Classify(%q) = %v (%s), want safe", c, r.Verdict, r.Reason)
			continue
		}
		os.Remove(marker)
		res := run(t, BashTool{}, env, obj{"command": c})
		if b, err := os.ReadFile(marker); err == nil {
			t.Errorf("%q ran configured programs: %s\noutput:\n%s", c, strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", "), res.Content)
		}
		if res.IsError || res.Meta["exit_status"] != 0 {
			t.Errorf("%q: exit %v: %s", c, res.Meta["exit_status"], res.Content)
		}
	}
}

// TestSafeGitOutput: the overrides keep what git prints: a diff with the
// repository's drivers neutralised is git's own diff.
func TestSafeGitOutput(t *testing.T) {
	repo, _, _ := hostileRepo(t)
	env := testEnv(t)
	env.Boundary.ProjectRoot, env.Cwd = repo, repo
	env.ChildEnv = childenv.Compose(os.Environ(), childenv.Config{})
	res := mustOK(t, run(t, BashTool{}, env, obj{"command": "git diff"}))
	for _, want := range []string{"diff --git a/f.txt b/f.txt", "-two", "+2"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("git diff output lacks %q:\n%s", want, res.Content)
		}
	}
	res = mustOK(t, run(t, BashTool{}, env, obj{"command": "git status --porcelain"}))
	if !strings.Contains(res.Content, " M f.txt") {
		t.Errorf("git status output lacks the modified file:\n%s", res.Content)
	}
}

// TestSafeProgramEnv: which commands get the overrides.
func TestSafeProgramEnv(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	base := []string{"PATH=" + os.Getenv("PATH"), "GIT_EXTERNAL_DIFF=x", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager",
		"GIT_CONFIG_VALUE_0=x", "RIPGREP_CONFIG_PATH=/x", "GOTOOLCHAIN=auto"}
	tests := []struct {
		cmd           string
		git, rg, gotc bool
	}{
		{"git status", true, false, false},
		{"git status && git log -p", true, false, false},
		{"git status && git commit -m x", false, false, false}, // one git segment is not read-only
		{"git diff --ext-diff", false, false, false},
		{"ls", false, false, false},
		{"rg foo", false, true, false},
		{"rg --pre x foo", false, false, false},
		{"go list ./...", false, false, true},
		{"go build", false, false, false},
		{"git log | rg x && go env", true, true, true},
	}
	for _, tc := range tests {
		got, err := safeProgramEnv(tc.cmd, base, false)
		if err != nil {
			t.Fatalf("safeProgramEnv(%q): %v", tc.cmd, err)
		}
		isGit := envValue(got, "GIT_EXTERNAL_DIFF") == "" && envValue(got, "GIT_CONFIG_KEY_0") == "core.fsmonitor" &&
			strings.Contains(envValue(got, "PATH"), "gitsafe-")
		if isGit != tc.git {
			t.Errorf("%q: git overrides = %v, want %v", tc.cmd, isGit, tc.git)
		}
		if rg := envValue(got, "RIPGREP_CONFIG_PATH") == ""; rg != tc.rg {
			t.Errorf("%q: rg override = %v, want %v", tc.cmd, rg, tc.rg)
		}
		if gotc := envValue(got, "GOTOOLCHAIN") == "local"; gotc != tc.gotc {
			t.Errorf("%q: go override = %v, want %v", tc.cmd, gotc, tc.gotc)
		}
	}
	if envValue(base, "GIT_EXTERNAL_DIFF") != "x" {
		t.Error("safeProgramEnv changed its input")
	}
	// In the sandbox a shim under /tmp would be hidden: git is not run.
	if _, err := safeProgramEnv("git status", base, true); err == nil || !strings.Contains(err.Error(), "sandbox replaces") {
		t.Errorf("confined, shim under %s: err = %v, want the shim refused", os.Getenv("XDG_CACHE_HOME"), err)
	}
	if _, err := safeProgramEnv("ls", base, true); err != nil {
		t.Errorf("confined, no git: %v", err)
	}
	for _, tc := range []struct {
		dir, tmpdir string
		want        bool
	}{
		{"/tmp/x/oc", "", true}, {"/var/tmp/oc", "", true}, {"/run/user/1/oc", "", true}, {"/home/u/.cache/oc", "", false},
		{"/scratch/t/oc", "/scratch/t", true}, {"/tmpx/oc", "", false}, {"/home/u/.cache/oc", "rel", false},
	} {
		if got := hiddenInSandbox(tc.dir, tc.tmpdir); got != tc.want {
			t.Errorf("hiddenInSandbox(%q, %q) = %v, want %v", tc.dir, tc.tmpdir, got, tc.want)
		}
	}
}

// TestGitOverridesAblation: each override below is needed: without it (the
// rest in place) the hostile repository's program runs.
func TestGitOverridesAblation(t *testing.T) {
	repo, _, marker := hostileRepo(t)
	base, err := gitSafeEnv(childenv.Compose(os.Environ(), childenv.Config{}), false)
	if err != nil {
		t.Fatal(err)
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		drop []string // configuration overrides removed
		set  []string // environment set instead
	}{
		{"git status", []string{"core.fsmonitor"}, nil},
		{"git status", []string{"core.hooksPath"}, []string{"GIT_OPTIONAL_LOCKS=1"}},
		// The shim neutralises the repository's protocol.<name>.allow too:
		// the real git, past the shim, shows the environment's part.
		{realGit + " remote show origin", []string{"protocol.allow", "protocol.ext.allow"}, nil},
		// Past the shim the environment alone does not stop diff drivers,
		// textconv or filters: the shim is needed.
		{realGit + " diff", nil, nil}, {realGit + " log -p -1", nil, nil}, {realGit + " status", nil, nil},
	} {
		env := ablate(base, tc.drop)
		for _, kv := range tc.set {
			k, v, _ := strings.Cut(kv, "=")
			env = gitquery.SetEnv(env, k, v, false)
		}
		os.Remove(marker)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", tc.cmd)
		cmd.Dir, cmd.Env, cmd.WaitDelay = repo, env, time.Second
		out, _ := cmd.CombinedOutput()
		cancel()
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%q without %v ran no configured program: the override is not shown to be needed\n%s", tc.cmd, tc.drop, out)
		}
	}
}

// ablate removes the configuration overrides named in drop from env (from
// GIT_CONFIG_KEY_n/VALUE_n and GIT_CONFIG_PARAMETERS).
func ablate(env, drop []string) []string {
	gone := map[string]bool{}
	for _, k := range drop {
		gone[k] = true
	}
	out := slicesClone(env)
	for i, kv := range out {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GIT_CONFIG_KEY_") && gone[v] {
			out[i] = k + "=oceancode.ablated"
		}
	}
	var params []string
	for _, kv := range gitquery.ConfigOverrides {
		if !gone[kv[0]] {
			params = append(params, gitquery.ShellQuote(kv[0])+"="+gitquery.ShellQuote(kv[1]))
		}
	}
	return gitquery.SetEnv(out, "GIT_CONFIG_PARAMETERS", strings.Join(params, " "), false)
}
