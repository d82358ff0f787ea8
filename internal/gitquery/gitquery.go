// Package gitquery is the one place that neutralises what a repository's
// own configuration would make git run. A repository oceancode opens is
// untrusted input: its .git/config can name a pager, an fsmonitor, diff
// drivers, textconv and clean/smudge filters, hooks, transports, a
// credential helper and the signature programs git starts to verify a
// signed commit (log.showSignature with gpg.program). Two callers need that
// neutralised:
//
//   - oceancode's own read-only questions (the redactor's read of the
//     secrets files' history, the advisor's bound asking whether a file is
//     committed, the pager's file list): Command builds them;
//   - the commands the shell guard judged read-only, which agent/tools runs
//     with Overrides applied to the child's environment (plus a git shim
//     that neutralises the filters and drivers a config names).
//
// Command-line configuration (GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS)
// outranks every configuration file, so the overrides hold whatever the
// repository's, the user's or an included file says.
package gitquery

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ConfigOverrides are set as command-line configuration for every git
// oceancode runs on an untrusted repository: each names a program git would
// start, or a transport it would open.
var ConfigOverrides = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.sshCommand", "ssh"},
	{"core.askPass", ""},
	{"credential.helper", ""}, // an empty value clears the list of helpers
	{"gpg.program", "gpg"},
	{"gpg.openpgp.program", "gpg"},
	{"gpg.x509.program", "gpgsm"},
	{"gpg.ssh.program", "ssh-keygen"},
	{"protocol.allow", "never"},
	{"protocol.file.allow", "never"},
	{"protocol.git.allow", "never"},
	{"protocol.ssh.allow", "never"},
	{"protocol.http.allow", "never"},
	{"protocol.https.allow", "never"},
	{"protocol.ext.allow", "never"},
	// Submodules: git status and diff look into a submodule with a child
	// git under the submodule's own configuration. With these none is
	// started.
	{"diff.ignoreSubmodules", "all"},
	{"diff.submodule", "short"},
	{"status.submoduleSummary", "false"},
	{"submodule.recurse", "false"},
}

// queryOverrides are added for oceancode's own queries, which never show
// signatures or print in colour (the caller parses the output).
var queryOverrides = [][2]string{
	{"log.showSignature", "false"},
	{"color.ui", "false"},
	{"core.quotePath", "false"},
}

// EnvRemoved are variables that name a program git runs, or carry
// configuration that would outrank the overrides.
var EnvRemoved = []string{
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
	"GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_COUNT",
}

// EnvSet are set in the environment.
var EnvSet = [][2]string{
	{"GIT_PAGER", "cat"},            // beats core.pager and pager.<cmd>; "cat" means no pager
	{"PAGER", "cat"},                //
	{"GIT_OPTIONAL_LOCKS", "0"},     // git status does not write the index (no post-index-change hook)
	{"GIT_TERMINAL_PROMPT", "0"},    // never prompt for credentials
	{"GIT_PROTOCOL_FROM_USER", "0"}, // protocols with allow=user are refused
}

// Overrides returns env with the overrides applied: EnvRemoved and any
// GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n taken out, EnvSet set, and
// ConfigOverrides as GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS (which,
// unlike GIT_CONFIG_COUNT, git hands on to the child gits it starts in
// submodules). env's backing array is reused.
func Overrides(env []string) []string {
	return overrides(env, ConfigOverrides, overrideParameters)
}

// overrideParameters is ConfigOverrides in GIT_CONFIG_PARAMETERS form,
// rendered once: Overrides runs for every read-only git command a tool
// call makes.
var overrideParameters = Parameters(ConfigOverrides)

func overrides(env []string, config [][2]string, params string) []string {
	out := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range EnvRemoved {
		out = SetEnv(out, k, "", true)
	}
	for _, kv := range EnvSet {
		out = SetEnv(out, kv[0], kv[1], false)
	}
	for i, kv := range config {
		n := strconv.Itoa(i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
	return SetEnv(out, "GIT_CONFIG_PARAMETERS", params, false)
}

// Parameters renders config in GIT_CONFIG_PARAMETERS form ('key'='value'
// separated by spaces).
func Parameters(config [][2]string) string {
	var b strings.Builder
	for i, kv := range config {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ShellQuote(kv[0]) + "=" + ShellQuote(kv[1]))
	}
	return b.String()
}

// Command returns git running args in dir for one of oceancode's own
// queries: every GIT_ variable of this process's environment is dropped
// (GIT_DIR or GIT_WORK_TREE would point the query elsewhere), the system
// configuration is skipped, and the overrides are applied: those of
// Overrides, those of a query (no signature verification, no colour), and
// one per filter, diff driver, protocol and submodule the repository's
// configuration names (Named: one git config read before the query,
// skipped for the listings of noContent).
// Callers that show diffs still pass --no-ext-diff: a diff driver's
// command comes from .gitattributes.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1")
	config := append(append([][2]string(nil), ConfigOverrides...), queryOverrides...)
	if !noContent[subcommand(args)] {
		config = append(config, Named(ctx, dir, env)...)
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, args...)...)
	cmd.Dir = dir
	cmd.Env = overrides(env, config, Parameters(config))
	return cmd
}

// noContent are the subcommands that list names and object ids and never
// pass a file's content through a filter or a diff driver: they need no
// Named read (one git process fewer for the advisor's ls-tree and the
// pager's file list).
var noContent = map[string]bool{"ls-tree": true, "ls-files": true, "rev-parse": true}

// subcommand is the first of args that is not an option (Command's
// callers pass only options that take no separate value before it).
func subcommand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// namedKeys selects the configuration keys whose name holds a
// user-chosen part (a filter's, a diff driver's, a protocol's, a
// submodule's name), which no fixed override can reach.
const namedKeys = `^(filter|diff|protocol|submodule)\.`

// Named reads the configuration git would see in dir (with env) and
// returns an override for each named program or transport in it: a
// filter's clean, smudge and process commands emptied and its required
// flag off, a diff driver's textconv set to cat and its cache off, a
// protocol never allowed, a submodule ignored. git config runs none of
// them. When the read fails the query will fail the same way, so nothing
// is returned.
func Named(ctx context.Context, dir string, env []string) [][2]string {
	cmd := exec.CommandContext(ctx, "git", "config", "--name-only", "--get-regexp", namedKeys)
	cmd.Dir = dir
	cmd.Env = overrides(append([]string(nil), env...), ConfigOverrides, overrideParameters)
	out, _ := cmd.Output()
	var config [][2]string
	for k := range strings.SplitSeq(string(out), "\n") {
		section, rest, _ := strings.Cut(k, ".")
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			continue
		}
		name, key := rest[:i], rest[i+1:]
		switch {
		case section == "filter" && (key == "clean" || key == "smudge" || key == "process"):
			config = append(config, [2]string{k, ""})
		case section == "filter" && key == "required":
			config = append(config, [2]string{k, "false"})
		case section == "diff" && key == "textconv":
			config = append(config, [2]string{k, "cat"})
		case section == "diff" && key == "cachetextconv":
			config = append(config, [2]string{k, "false"})
		case section == "protocol" && key == "allow":
			config = append(config, [2]string{k, "never"})
		case section == "submodule":
			config = append(config, [2]string{section + "." + name + ".ignore", "all"})
		}
	}
	return config
}

// HasRepository reports whether dir holds a git repository git could
// read: a .git directory with a HEAD file, or a .git file (a worktree's or
// a submodule's link to its git directory). A directory without one costs
// no process (each query is two: git config, then the query).
func HasRepository(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	switch {
	case err != nil:
		return false
	case fi.Mode().IsRegular():
		return true
	case !fi.IsDir():
		return false
	}
	_, err = os.Lstat(filepath.Join(dir, ".git", "HEAD"))
	return err == nil
}

// SetEnv sets (or, with remove, deletes) k in env, reusing its backing
// array.
func SetEnv(env []string, k, v string, remove bool) []string {
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	if !remove {
		out = append(out, k+"="+v)
	}
	return out
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
