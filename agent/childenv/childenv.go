// Package childenv composes the environment of every child process (bash,
// PTY, MCP stdio servers) instead of copying the parent's: by default a
// variable whose name contains KEY, SECRET or TOKEN (case-insensitive; also
// PASSWORD, PASSWD, CREDENTIAL, AUTHORIZATION and COOKIE) is stripped, so a
// secret in the user's shell never leaks into a spawned tool. The word list
// is internal/secret's, the one secret-name vocabulary that inspect's and
// the crash reports' redaction use too.
//
// The child_env config tunes it, with this precedence (highest first):
//
//	Set   > Keep > Strip (and the default secret-name strip)
//
// Set always wins: a variable in Set is in the child's environment with that
// value, even if its name looks secret (the user put it there on purpose).
// Keep keeps a parent variable that Strip or the default would remove.
// Strip removes more parent variables than the default does.
package childenv

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	wildcard "github.com/oceancode/oceancode/internal/glob" // glob names this package's tests' matcher
	"github.com/oceancode/oceancode/internal/secret"
)

// Config is the child_env configuration.
type Config struct {
	// Strip lists extra name globs to remove, e.g. "AWS_*". Matched
	// case-insensitively (stripping errs wide).
	Strip []string
	// Keep lists name globs kept even when secret-named or stripped, e.g.
	// "GIT_ASKPASS_TOKEN_HELPER". Matched case-sensitively (keeping errs
	// narrow).
	Keep []string
	// Set adds or overrides variables.
	Set map[string]string
}

// Globs use '*' for any run of characters and '?' for one character; every
// other character is literal (internal/glob's text globs).
var (
	keepGlob  = wildcard.Wild{One: true}
	stripGlob = wildcard.Wild{One: true, Fold: true}
)

// SecretName reports whether name is stripped by default: it contains one
// of secret.Words (KEY, SECRET, TOKEN, PASSWORD, …), case-insensitively.
func SecretName(name string) bool { return secret.Name(name) }

// Validate reports Set entries that cannot be environment variables (an
// empty name, or a name with "=" or NUL, or a value with NUL). Compose skips
// them.
func (c Config) Validate() error {
	for _, k := range slices.Sorted(maps.Keys(c.Set)) {
		if !validName(k) {
			return fmt.Errorf("childenv: set %q: invalid variable name", k)
		}
		if strings.IndexByte(c.Set[k], 0) >= 0 {
			return fmt.Errorf("childenv: set %s: value contains a NUL byte", k)
		}
	}
	return nil
}

func validName(k string) bool {
	return k != "" && !strings.ContainsAny(k, "=\x00")
}

// Compose returns the child's environment from the parent's ("NAME=value"
// entries, as os.Environ returns them) and c, sorted by name. When the
// parent lists a name twice, the last entry wins (as os/exec does); entries
// without "=" or with an empty name are dropped.
func Compose(parent []string, c Config) []string {
	vars := make(map[string]string, len(parent)+len(c.Set))
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		vars[k] = v
	}
	for k := range vars {
		if kept(k, c.Keep) {
			continue
		}
		if SecretName(k) || stripped(k, c.Strip) {
			delete(vars, k)
		}
	}
	for k, v := range c.Set {
		if validName(k) && strings.IndexByte(v, 0) < 0 {
			vars[k] = v
		}
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

func kept(name string, globs []string) bool {
	for _, g := range globs {
		if keepGlob.Match(g, name) {
			return true
		}
	}
	return false
}

func stripped(name string, globs []string) bool {
	for _, g := range globs {
		if stripGlob.Match(g, name) {
			return true
		}
	}
	return false
}
