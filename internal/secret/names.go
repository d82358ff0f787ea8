// Package secret is OceanCode's one secret vocabulary. It says which names
// are secret — environment variables, config keys, command-line flags (one
// word list for all of them), secrets files (.env and friends) and the
// /proc files that expose a process's environment or memory — and it finds
// and redacts secret values in text: the values of secrets the process
// knows, and strings shaped like credentials (provider key prefixes, private
// key blocks, JWTs, passwords in URLs).
//
// Every part of the product that strips, refuses or redacts uses it:
// agent/childenv (the child environment), agent/fsguard and agent/shellguard
// (secrets files), agent/session (crash reports), the agent's tool results
// (before the model and the session store see them), layers/report
// (inspect), and the CLI's error output. It is pure (no I/O) and imports
// only the standard library, so every layer may import it.
package secret

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words make a name secret wherever they occur in it, in any case (Unicode
// simple case folding: the Kelvin sign counts as a k). The first three are
// the seed's (KEY, SECRET, TOKEN); the rest name passwords and credentials
// under their usual spellings.
var Words = [...]string{"key", "secret", "token", "password", "passwd", "credential", "authorization", "cookie"}

// Name reports whether name (an environment variable, a config key's leaf,
// a flag without its dashes) contains one of Words.
func Name(name string) bool {
	for i := 0; i < len(name); {
		for _, w := range Words {
			if hasFoldPrefix(name[i:], w) {
				return true
			}
		}
		_, n := utf8.DecodeRuneInString(name[i:])
		i += n
	}
	return false
}

// hasFoldPrefix reports whether s starts with word (lower-case ASCII) under
// Unicode simple case folding. An invalid UTF-8 byte is U+FFFD, as regexp
// reads it.
func hasFoldPrefix(s, word string) bool {
	for j := 0; j < len(word); j++ {
		if s == "" {
			return false
		}
		r, n := utf8.DecodeRuneInString(s)
		s = s[n:]
		if w := rune(word[j]); r != w {
			f := unicode.SimpleFold(r)
			for f != r && f != w {
				f = unicode.SimpleFold(f)
			}
			if f != w {
				return false
			}
		}
	}
	return true
}

// templateSuffixes mark *.env.* files that are committed templates, not
// secrets: .env.example (the seed's example), .env.sample, .env.template.
var templateSuffixes = [...]string{".example", ".sample", ".template"}

// FileName reports whether a file name (its last element is used; a
// trailing slash is ignored) is a secrets file: .env, *.env, or *.env.*
// other than a template (*.example, *.sample, *.template). Names are
// compared case-insensitively.
func FileName(name string) bool {
	name = strings.TrimRight(name, "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if hasSuffixFold(name, ".env") { // .env, x.env
		return true
	}
	if !containsFold(name, ".env.") { // not *.env.*
		return false
	}
	for _, t := range templateSuffixes {
		if hasSuffixFold(name, t) {
			return false
		}
	}
	return true
}

// hasSuffixFold is strings.HasSuffix under ASCII case folding (suffix is
// lower case), without allocating.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// containsFold is strings.Contains under ASCII case folding.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// ProcFile reports whether an absolute, cleaned path is a /proc file that
// exposes another process's environment or memory: /proc/<pid>/environ,
// /proc/<pid>/mem, /proc/<pid>/task/<tid>/environ or …/mem, for any pid
// (self included: the rule does not depend on whose it is).
func ProcFile(p string) bool {
	p = path.Clean(p)
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	el := strings.Split(rest, "/")
	switch {
	case len(el) == 2:
	case len(el) == 4 && el[1] == "task":
	default:
		return false
	}
	last := el[len(el)-1]
	return last == "environ" || last == "mem"
}

// VarName reports whether s is usable as an environment variable's name:
// letters, digits and _, not starting with a digit.
func VarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// LooksLikeKey reports whether s, given where a variable's name belongs
// (api_key_env), is a credential instead: it is not a variable name at all,
// it has a credential's shape (a provider prefix such as sk-, ghp_, AKIA…),
// or it is a long mix of upper case, lower case and digits, as random keys
// are and variable names are not.
func LooksLikeKey(s string) bool {
	if s == "" {
		return false
	}
	if !VarName(s) || Redact(s) != s {
		return true
	}
	var lower, upper, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return len(s) >= 24 && lower && upper && digit
}

// FileRefusal is why a secrets file is refused, in the read tool's words,
// wherever it is refused (the read tool, a shell command naming one).
const FileRefusal = "secrets files are never read into the model"

// UnderDir reports whether the cleaned absolute path p is dir or inside it.
func UnderDir(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}
