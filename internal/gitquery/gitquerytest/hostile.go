// Package gitquerytest builds, for tests, a git repository whose own
// configuration names a marker program for every key that makes git start
// one during a read-only query, and whose history holds a signed commit
// (so log.showSignature has something to verify).
package gitquerytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Keys are the repository configuration keys Hostile sets to the marker
// program (each runs it with a distinct first argument).
var Keys = []string{
	"core.pager", "core.fsmonitor", "gpg.program", "gpg.openpgp.program", "gpg.ssh.program",
	"gpg.x509.program", "diff.external", "diff.evil.command", "diff.evil.textconv",
	"filter.evil.clean", "filter.evil.smudge", "filter.evil.process", "core.sshCommand", "credential.helper",
}

// Repo is a hostile repository.
type Repo struct {
	Dir    string // the work tree
	Marker string // the file the marker program appends each key it ran for
	Env    []string
}

// Ran returns the keys whose program ran, one per line as the marker wrote
// them ("" when none did).
func (r Repo) Ran(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(r.Marker)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Git runs git in the repository with a plain environment (no overrides)
// and fails the test on error.
func (r Repo) Git(t testing.TB, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = r.Dir, r.Env
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Hostile makes the repository in a temporary directory: a first commit,
// then a signed one adding .env with API_KEY=value (a gpgsig header git
// will hand to gpg.program when log.showSignature is on), then every
// key of Keys and log.showSignature, diff attributes and a filter set in
// .git/config and .gitattributes.
func Hostile(t testing.TB, value string) Repo {
	t.Helper()
	top := t.TempDir()
	r := Repo{Dir: filepath.Join(top, "repo"), Marker: filepath.Join(top, "ran")}
	home := filepath.Join(top, "home")
	for _, d := range []string{r.Dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.Env = append(cleanEnv(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	// One marker program per key, named after it: some keys are run by a
	// shell and some executed directly, so the name is the only way in.
	script := "#!/bin/sh\necho \"${0##*/} $*\" >>'" + r.Marker + "'\nexit 1\n"
	bin := filepath.Join(top, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.Dir, "main.txt"), "one\n", 0o644)
	r.Git(t, "init", "-q")
	r.Git(t, "add", "-f", ".")
	r.Git(t, "commit", "-qm", "one")
	write(t, filepath.Join(r.Dir, ".env"), "API_KEY="+value+"\n", 0o644)
	r.Git(t, "add", "-f", ".env")
	r.Git(t, "commit", "-qm", "env")
	signCommit(t, r)
	for _, k := range Keys {
		prog := filepath.Join(bin, k)
		write(t, prog, script, 0o755)
		r.Git(t, "config", k, prog)
	}
	r.Git(t, "config", "log.showSignature", "true")
	write(t, filepath.Join(r.Dir, ".gitattributes"), "* diff=evil filter=evil\n", 0o644)
	write(t, filepath.Join(r.Dir, "main.txt"), "two\n", 0o644) // a change for diffs and status
	write(t, filepath.Join(r.Dir, "untracked.txt"), "new\n", 0o644)
	return r
}

// signCommit replaces HEAD with the same commit carrying a gpgsig header
// (its signature is garbage: what matters is that git hands it to the
// verifier), so a query of the history of .env meets it.
func signCommit(t testing.TB, r Repo) {
	t.Helper()
	tree := strings.TrimSpace(r.Git(t, "rev-parse", "HEAD^{tree}"))
	parent := strings.TrimSpace(r.Git(t, "rev-parse", "HEAD~1"))
	obj := "tree " + tree + "\nparent " + parent + "\nauthor t <t@x> 1700000000 +0000\ncommitter t <t@x> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nenv, signed\n"
	f := filepath.Join(t.TempDir(), "commit")
	write(t, f, obj, 0o644)
	id := strings.TrimSpace(r.Git(t, "hash-object", "-t", "commit", "-w", f))
	r.Git(t, "update-ref", "HEAD", id)
}

// cleanEnv is the process environment without GIT_ variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

func write(t testing.TB, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// Plain returns dir as a repository to drive with Git: an identity, no
// system configuration and dir as HOME (so neither the host's nor the
// user's git configuration applies). It does not run git init.
func Plain(dir string) Repo {
	return Repo{Dir: dir, Env: append(cleanEnv(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t",
		"GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")}
}
