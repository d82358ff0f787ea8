package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/internal/gitquery"
)

// Programs named by configuration never run under a safe verdict.
//
// The shell guard auto-approves read-only git, rg and go commands, but those
// programs run what configuration names: git runs the repository's
// fsmonitor, pager, diff drivers, textconv and clean/smudge filters, hooks
// and transports; rg reads the file RIPGREP_CONFIG_PATH names; go switches to
// the toolchain go.mod asks for. When every segment of a bash command that
// runs one of them was judged safe, the command runs with the overrides
// below (docs/shellguard.md, "Programs named by configuration"):
//
//   - git: the environment overrides of internal/gitquery, and a git shim first
//     on PATH (gitShim) that reads the repository's configuration the way
//     the command will and neutralises every filter and textconv driver and
//     every protocol it names, and adds --no-ext-diff --no-textconv to the
//     diff-showing subcommands. The guard refuses git by path and under
//     wrappers that clear the environment, so the shim and the overrides
//     always apply.
//   - rg: RIPGREP_CONFIG_PATH is removed.
//   - go: GOTOOLCHAIN=local.

// safeGuard classifies commands for safeProgramEnv: the built-in safe list
// only (safe_list_extra entries are the user's choice and get no overrides).
var safeGuard = sync.OnceValues(func() (*shellguard.Classifier, error) {
	return shellguard.New(shellguard.Config{})
})

// safeProgramEnv returns env for running command: with the overrides for
// each program whose every segment in command is read-only. confined: the
// command runs in the sandbox, which must see the git shim.
func safeProgramEnv(command string, env []string, confined bool) ([]string, error) {
	g, err := safeGuard()
	if err != nil {
		return nil, err
	}
	r := g.Classify(command, "")
	var seen, unsafe [3]bool
	for _, s := range r.Segments {
		if len(s.Argv) == 0 {
			continue
		}
		k := -1
		switch filepath.Base(s.Argv[0]) {
		case "git":
			k = 0
		case "rg":
			k = 1
		case "go":
			k = 2
		}
		if k >= 0 {
			seen[k] = true
			unsafe[k] = unsafe[k] || s.Verdict != shellguard.Safe
		}
	}
	if !seen[0] && !seen[1] && !seen[2] {
		return env, nil
	}
	out := slicesClone(env)
	if seen[0] && !unsafe[0] {
		if out, err = gitSafeEnv(out, confined); err != nil {
			return nil, err
		}
	}
	if seen[1] && !unsafe[1] {
		out = gitquery.SetEnv(out, "RIPGREP_CONFIG_PATH", "", true)
	}
	if seen[2] && !unsafe[2] {
		out = gitquery.SetEnv(out, "GOTOOLCHAIN", "local", false)
	}
	return out, nil
}

func slicesClone(s []string) []string { return append(make([]string, 0, len(s)+32), s...) }

// gitSafeEnv applies the git overrides and puts the shim first on PATH.
func gitSafeEnv(env []string, confined bool) ([]string, error) {
	path := envValue(env, "PATH")
	real := lookPath("git", path)
	if real == "" {
		return env, nil // no git to run
	}
	dir, err := installGitShim(real)
	if err != nil {
		return nil, fmt.Errorf("neutralise git: %w", err)
	}
	if confined && hiddenInSandbox(dir, envValue(env, "TMPDIR")) {
		// Past a shim it cannot see, git would find the real git on PATH
		// with the repository's drivers: fail closed.
		return nil, fmt.Errorf("neutralise git: the git shim %s is in a directory the sandbox replaces; set XDG_CACHE_HOME outside /tmp, /var/tmp, /run and TMPDIR", dir)
	}
	out := gitquery.Overrides(env)
	if path == "" {
		path = dir
	} else {
		path = dir + ":" + path
	}
	return gitquery.SetEnv(out, "PATH", path, false), nil
}

// hiddenInSandbox reports whether the sandbox mounts a private directory
// over dir (agent/sandbox: /tmp, /var/tmp, /run, /var/run and TMPDIR).
func hiddenInSandbox(dir, tmpdir string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	for _, m := range []string{"/tmp", "/var/tmp", "/run", "/var/run", tmpdir} {
		if m == "" || !filepath.IsAbs(m) {
			continue
		}
		if d, err := filepath.EvalSymlinks(m); err == nil {
			m = d
		}
		if rel, err := filepath.Rel(m, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// envValue is the value of k in env, or "".
func envValue(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds name in the PATH value path (the child's, not the agent's).
func lookPath(name, path string) string {
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry is the command's directory: never trusted
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// gitShimScript is the git shim; @REAL@ is the real git's path, quoted.
const gitShimScript = `#!/bin/sh
# Written by oceancode (agent/tools/gitsafe.go). Every git command of this
# bash call was judged read-only by the shell guard: run the real git with
# the programs the repository's configuration names neutralised.
real=@REAL@
unset CDPATH
set -f
n=${GIT_CONFIG_COUNT:-0}
add() {
	export "GIT_CONFIG_KEY_$n=$1" "GIT_CONFIG_VALUE_$n=$2"
	n=$((n + 1))
}
# The configuration of the repository the command reaches (git's -C).
names() {
	while [ $# -gt 0 ]; do
		case $1 in
		-C) if [ -n "$2" ]; then cd -- "$2" || return 0; fi; shift 2 ;;
		--namespace) shift 2 ;;
		-*) shift ;;
		*) break ;;
		esac
	done
	"$real" config --name-only --get-regexp '^(filter|diff|protocol|submodule)\.' 2>/dev/null
	top=$("$real" rev-parse --show-toplevel 2>/dev/null) &&
		[ -f "$top/.gitmodules" ] &&
		"$real" config -f "$top/.gitmodules" --name-only --get-regexp '^submodule\.' 2>/dev/null
}
list=$(names "$@")
oldifs=$IFS
IFS='
'
for k in $list; do
	case $k in
	filter.*.clean|filter.*.smudge|filter.*.process) add "$k" '' ;;
	filter.*.required) add "$k" false ;;
	diff.*.textconv) add "$k" cat ;;
	diff.*.cachetextconv) add "$k" false ;;
	protocol.*.allow) add "$k" never ;;
	submodule.*.*) add "${k%.*}.ignore" all ;;
	esac
done
IFS=$oldifs
export GIT_CONFIG_COUNT=$n
# The subcommands that show diffs run no external diff and no textconv.
g=0 k=0 sub= verb= want= skip=
for a do
	k=$((k + 1))
	if [ -n "$skip" ]; then skip=; continue; fi
	if [ -z "$sub" ]; then
		case $a in
		-C|--namespace) skip=1 ;;
		-*) ;;
		*)
			sub=$a g=$k
			case $a in
			log|show|whatchanged|diff|diff-tree|diff-files|diff-index|blame|annotate) want=1 ;;
			stash|reflog) verb=1 ;;
			esac
			if [ -z "$verb" ]; then break; fi
			;;
		esac
		continue
	fi
	verb=
	case $sub:$a in
	stash:list|stash:show|reflog:show) g=$k want=1 ;;
	stash:*|reflog:exists|reflog:expire|reflog:delete) ;;
	reflog:*) want=1 ;;
	esac
	break
done
if [ "$sub" = reflog ] && [ -n "$verb" ]; then want=1; fi
if [ -n "$want" ]; then
	k=0
	for a do
		set -- "$@" "$a"
		k=$((k + 1))
		if [ "$k" -eq "$g" ]; then set -- "$@" --no-ext-diff --no-textconv; fi
	done
	shift "$k"
fi
exec "$real" "$@"
`

var shimMu sync.Mutex

// installGitShim writes the shim for the real git at real into the user's
// cache directory (visible inside the sandbox, unlike /tmp) and returns its
// directory. An existing shim is used only when its content is exactly ours.
func installGitShim(real string) (string, error) {
	script := []byte(strings.Replace(gitShimScript, "@REAL@", gitquery.ShellQuote(real), 1))
	sum := sha256.Sum256(script)
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "oceancode", "gitsafe-"+hex.EncodeToString(sum[:8]))
	file := filepath.Join(dir, "git")
	shimMu.Lock()
	defer shimMu.Unlock()
	if b, err := os.ReadFile(file); err == nil && bytes.Equal(b, script) {
		if fi, err := os.Stat(file); err == nil && fi.Mode().Perm() == 0o755 {
			return dir, nil
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".git-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(script); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return "", err
	}
	return dir, nil
}
