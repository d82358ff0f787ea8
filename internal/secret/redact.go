package secret

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mark stands in for a redacted part of a text.
const Mark = "[REDACTED]"

// MinValue is the shortest value of a known secret that Redactor redacts:
// a secret-named variable holding "us" or "1" (KEYBOARD=us) is not a
// credential, and replacing every "us" in a text would destroy it.
const MinValue = 8

// shapes are credentials recognisable by their form. They are compiled on
// first use: every command links this package, few need them.
type shapes struct {
	tokens *regexp.Regexp // replaced whole
	kept   *regexp.Regexp // group 1 is kept, the rest replaced
	assign *regexp.Regexp // group 1 (the name) is kept: for Scrub only
}

var compiled = sync.OnceValue(func() *shapes {
	token := strings.Join([]string{
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`,
		`\bsk-[A-Za-z0-9_\-]{16,}`,                                        // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…), OpenRouter
		`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`,   // GitHub
		`\bglpat-[A-Za-z0-9_\-]{20,}`,                                     // GitLab
		`\bxox[abposre]-[A-Za-z0-9\-]{10,}`,                               // Slack
		`\bxapp-[A-Za-z0-9\-]{10,}`,                                       // Slack app-level
		`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,                         // AWS access key id
		`\bAIza[0-9A-Za-z_\-]{35,}`,                                       // Google API key
		`\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`,                          // Stripe
		`\bnpm_[A-Za-z0-9]{36,}`,                                          // npm
		`\bhf_[A-Za-z0-9]{30,}`,                                           // Hugging Face
		`\bdop_v1_[a-f0-9]{64}`,                                           // DigitalOcean
		`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, // JWT
	}, "|")
	return &shapes{
		tokens: regexp.MustCompile(token),
		kept: regexp.MustCompile(
			`(?i)(\b[a-z][a-z0-9+.\-]*://[^/\s:@"'<>]*:)[^/\s@"'<>]+(@)` + // scheme://user:PASSWORD@
				`|(\bbearer\s+|\bauthorization:\s*basic\s+)[A-Za-z0-9._~+/=\-]{16,}`), // Authorization: Bearer …
		assign: regexp.MustCompile(`(?i)(\b[a-z0-9_\-]*(?:api[_\-]?key|apikey|access[_\-]?key|secret|token|password|passwd|credential|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&)}[\]]{6,}`),
	}
})

// Redact replaces every credential-shaped part of s with Mark: provider
// keys and tokens by their prefixes (sk-, sk-ant-, sk-proj-, ghp_, gho_,
// github_pat_, glpat-, xoxb-, AKIA…, AIza…, …), private key blocks, JWTs,
// the password in scheme://user:password@host, and the credential after
// "Bearer". It leaves ordinary code and prose alone, so it is safe on tool
// output the model goes on to edit.
func Redact(s string) string {
	if s == "" {
		return s
	}
	sh := compiled()
	s = sh.tokens.ReplaceAllLiteralString(s, Mark)
	return sh.kept.ReplaceAllString(s, "${1}${3}"+Mark+"${2}")
}

// Scrub is Redact plus the value of anything assigned to a secret-looking
// name ("api_key=…", `"token": "…"`, "password: …"). It is for text no one
// edits — crash reports, error messages — where redacting too much costs
// nothing.
func Scrub(s string) string {
	s = Redact(s)
	if s == "" {
		return s
	}
	return compiled().assign.ReplaceAllString(s, "${1}"+Mark)
}

// Redactor redacts the values of the secrets a process knows, then what
// Redact does. The zero value and nil redact shapes only. It is safe for
// concurrent use once built.
type Redactor struct {
	values []string // longest first, so a value containing another goes first
}

// NewRedactor returns a Redactor for values. Values shorter than MinValue
// and absolute paths (a secret-named variable holding a key file's path)
// are not secrets worth redacting and are dropped, as are duplicates.
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		if len(v) < MinValue || strings.HasPrefix(v, "/") || slices.Contains(r.values, v) {
			continue
		}
		r.values = append(r.values, v)
	}
	slices.SortFunc(r.values, func(a, b string) int { return len(b) - len(a) })
	return r
}

// Len is how many values r redacts.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}

// Redact replaces every known value in s, then every credential shape
// (see the package function Redact), with Mark.
func (r *Redactor) Redact(s string) string {
	return Redact(r.known(s))
}

// Scrub is Redact plus assignments to secret-looking names (see the
// package function Scrub).
func (r *Redactor) Scrub(s string) string {
	return Scrub(r.known(s))
}

func (r *Redactor) known(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mark)
		}
	}
	return s
}

// Args redacts a command line (an MCP server's args, a command shown in
// inspect or doctor): the value of a secret-named flag (--token X,
// --api-key=X, --password X, --client-secret X) and every credential shape.
// Flags naming where a secret is (--key-file, --token-path, --api-key-env)
// keep their value. args is not modified.
func Args(args []string) []string {
	out := make([]string, len(args))
	next := false
	for i, a := range args {
		if next {
			next = false
			out[i] = Mark
			continue
		}
		out[i] = Redact(a)
		name, val, eq := strings.Cut(a, "=")
		if !strings.HasPrefix(name, "-") || !secretFlag(strings.TrimLeft(name, "-")) {
			continue
		}
		switch {
		case eq && val != "":
			out[i] = name + "=" + Mark
		case !eq:
			next = true
		}
	}
	return out
}

// secretFlag reports whether a flag's name (without dashes) takes a secret
// value.
func secretFlag(name string) bool {
	if name == "" {
		return false
	}
	l := strings.ToLower(name)
	for _, s := range [...]string{"file", "path", "env", "dir", "name", "id", "type", "helper", "cmd", "command"} {
		if strings.HasSuffix(l, "-"+s) || strings.HasSuffix(l, "_"+s) {
			return false
		}
	}
	switch l {
	case "auth", "pass", "pw", "pwd", "bearer":
		return true
	}
	return Name(name)
}
