package secret

import (
	"regexp"
	"strings"
	"sync"
)

// Mark stands in for a redacted part of a text.
const Mark = "[REDACTED]"

// MinValue is the shortest value of a known secret that Redactor redacts:
// a secret-named variable holding "us" or "1" (KEYBOARD=us) is not a
// credential, and replacing every "us" in a text would destroy it.
const MinValue = 8

// shape is one credential form: a regular expression that starts with a
// literal (so the regexp package finds candidates fast), the literals that
// must occur in a text for it to match at all (checked first, with
// strings.Contains), and whether a match must start a word (what \b would
// say, checked by hand: \b in front would hide the literal prefix).
type shape struct {
	markers []string
	re      *regexp.Regexp
	word    bool
}

// shapes are compiled on first use: every command links this package, few
// need them.
type shapes struct {
	tokens []shape        // replaced whole
	bearer *regexp.Regexp // group 1 (the scheme) is kept
	assign *regexp.Regexp // group 1 (the name) is kept: for Scrub only
}

var compiled = sync.OnceValue(compileShapes)

func compileShapes() *shapes {
	tok := func(expr string, word bool, markers ...string) shape {
		return shape{markers: markers, re: regexp.MustCompile(expr), word: word}
	}
	return &shapes{
		tokens: []shape{
			tok(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`, false, "-----BEGIN "),
			tok(`sk-[A-Za-z0-9_\-]{16,}`, true, "sk-"),                                      // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…), OpenRouter
			tok(`gh[pousr]_[A-Za-z0-9]{20,}`, true, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"), // GitHub
			tok(`github_pat_[A-Za-z0-9_]{20,}`, true, "github_pat_"),
			tok(`glpat-[A-Za-z0-9_\-]{20,}`, true, "glpat-"),                                   // GitLab
			tok(`xox[abposre]-[A-Za-z0-9\-]{10,}`, true, "xox"),                                // Slack
			tok(`xapp-[A-Za-z0-9\-]{10,}`, true, "xapp-"),                                      // Slack app-level
			tok(`(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`, true, "AKIA", "ASIA", "ABIA", "ACCA"), // AWS access key id
			tok(`AIza[0-9A-Za-z_\-]{35,}`, true, "AIza"),                                       // Google API key
			tok(`[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`, true, "k_live_", "k_test_"),            // Stripe
			tok(`npm_[A-Za-z0-9]{36,}`, true, "npm_"),                                          // npm
			tok(`hf_[A-Za-z0-9]{30,}`, true, "hf_"),                                            // Hugging Face
			tok(`dop_v1_[a-f0-9]{64}`, true, "dop_v1_"),                                        // DigitalOcean
			tok(`eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, true, "eyJ"),  // JWT
		},
		bearer: regexp.MustCompile(`(?i)(\bbearer\s+|\bauthorization:\s*basic\s+)[A-Za-z0-9._~+/=\-]{16,}`),
		assign: regexp.MustCompile(`(?i)(\b[a-z0-9_\-]*(?:api[_\-]?key|apikey|access[_\-]?key|secret|token|password|passwd|credential|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&)}[\]]{6,}`),
	}
}

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
	tokens, bearer := scanRuns(s)
	if tokens {
		sh := compiled()
		for i := range sh.tokens {
			s = sh.tokens[i].replace(s)
		}
	}
	s = redactUserinfo(s)
	if bearer {
		s = compiled().bearer.ReplaceAllString(s, "${1}"+Mark)
	}
	return s
}

// minRun is the shortest run of runByte characters a credential shape
// needs: a JWT's "eyJ" and eight more; every other token shape is longer
// (sk- and 16, xoxb- and 10, AKIA and 16, …), and so is the credential
// after "Bearer " (16).
const minRun = 11

// runBytes are the characters of a credential token or of a bearer
// credential ([A-Za-z0-9_.~+/=-]).
var runBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = wordByte(byte(c)) || strings.IndexByte("-.~+/=", byte(c)) >= 0
	}
	return t
}()

// scanRuns is Redact's first pass: it finds the runs of runBytes at least
// minRun long (skipping minRun bytes at a time where there is none) and
// reports whether one of them may start a token shape — at its start or
// after one of its non-word characters, one of the shapes' first letters
// (tokenStart) — or one follows "bearer" or "basic" and white space, and
// whether the text holds a private key block. Only then do the regular
// expressions run: most tool output has neither, and a 30 KB text costs
// about 10 µs.
func scanRuns(s string) (tokens, bearer bool) {
	tokens = strings.Contains(s, "PRIVATE KEY-----") // a private key block: "-----BEGIN … PRIVATE KEY-----"
	n := len(s)
	for i := minRun - 1; i < n; {
		if !runBytes[s[i]] {
			i += minRun
			continue
		}
		st, en := i, i+1
		for st > 0 && runBytes[s[st-1]] {
			st--
		}
		for en < n && runBytes[s[en]] {
			en++
		}
		if en-st >= minRun {
			if !tokens && runMayStartToken(s[st:en]) {
				tokens = true
			}
			if !bearer && afterAuthWord(s[:st]) {
				bearer = true
			}
			if tokens && bearer {
				return
			}
		}
		i = en + minRun
	}
	return
}

// runMayStartToken reports whether a run holds, at its start or after a
// non-word character, the marker a token shape starts with.
func runMayStartToken(r string) bool {
	for i := 0; i < len(r); i++ {
		if i > 0 && wordByte(r[i-1]) {
			continue
		}
		if markerAt(r[i:]) {
			return true
		}
	}
	return false
}

// markerAt reports whether t starts with one of the token shapes' markers.
func markerAt(t string) bool {
	if len(t) < 3 {
		return false
	}
	switch t[0] {
	case 's':
		return strings.HasPrefix(t, "sk-") || strings.HasPrefix(t, "sk_")
	case 'r':
		return strings.HasPrefix(t, "rk_")
	case 'g':
		return t[1] == 'h' && strings.IndexByte("pousr", t[2]) >= 0 || strings.HasPrefix(t, "github_pat_") || strings.HasPrefix(t, "glpat-")
	case 'x':
		return strings.HasPrefix(t, "xox") || strings.HasPrefix(t, "xapp-")
	case 'A':
		return strings.HasPrefix(t, "AKIA") || strings.HasPrefix(t, "ASIA") || strings.HasPrefix(t, "ABIA") ||
			strings.HasPrefix(t, "ACCA") || strings.HasPrefix(t, "AIza")
	case 'n':
		return strings.HasPrefix(t, "npm_")
	case 'h':
		return strings.HasPrefix(t, "hf_")
	case 'd':
		return strings.HasPrefix(t, "dop_v1_")
	case 'e':
		return strings.HasPrefix(t, "eyJ")
	}
	return false
}

// afterAuthWord reports whether before (the text up to a run) ends with
// "bearer" or "basic" (any case) and white space.
func afterAuthWord(before string) bool {
	t := strings.TrimRight(before, " \t\r\n")
	if len(t) == len(before) {
		return false
	}
	return hasSuffixFold(t, "bearer") || hasSuffixFold(t, "basic")
}

func (t *shape) replace(s string) string {
	found := false
	for _, m := range t.markers {
		if strings.Contains(s, m) {
			found = true
			break
		}
	}
	if !found {
		return s
	}
	locs := t.re.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if t.word && l[0] > 0 && wordByte(s[l[0]-1]) {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(Mark)
		last = l[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// redactUserinfo replaces the password of every scheme://user:password@
// with Mark. The authority ends at '/', whitespace, a quote or '<>'.
func redactUserinfo(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			break
		}
		start := i + j + 3
		end := start
		for end < len(s) && !strings.ContainsRune("/ \t\r\n\"'<>", rune(s[end])) {
			end++
		}
		auth := s[start:end]
		if at := strings.LastIndexByte(auth, '@'); at > 0 {
			if colon := strings.IndexByte(auth[:at], ':'); colon >= 0 && colon+1 < at && auth[colon+1:at] != Mark {
				b.WriteString(s[last : start+colon+1])
				b.WriteString(Mark)
				last = start + at
			}
		}
		i = max(end, start)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// containsAnyFold reports whether s contains one of words (lower-case
// ASCII) in any case, without lowering s.
func containsAnyFold(s string, words ...string) bool {
	for _, w := range words {
		first := [2]byte{w[0], w[0] - 'a' + 'A'}
		for i := 0; i+len(w) <= len(s); {
			k := strings.IndexAny(s[i:], string(first[:]))
			if k < 0 || i+k+len(w) > len(s) {
				break
			}
			if strings.EqualFold(s[i+k:i+k+len(w)], w) {
				return true
			}
			i += k + 1
		}
	}
	return false
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
	m *matcher
	n int // values kept
}

// NewRedactor returns a Redactor for unnamed values: each is replaced with
// Mark. Values Candidate refuses (short, common words, paths, numbers,
// repetitive) are dropped.
func NewRedactor(values ...string) *Redactor {
	known := make([]Known, len(values))
	for i, v := range values {
		known[i] = Known{Value: v}
	}
	return NewKnownRedactor(known...)
}

// NewKnownRedactor returns a Redactor for known values, each replaced with
// its Known.Mark wherever it occurs in one of the forms a command prints
// it in: as is, each line of a multi-line value, JSON-escaped, hex (lower
// and upper case, and decoded from hex dumps: see redactDumps), base64
// (standard and URL-safe, at any alignment). Values Candidate refuses are
// dropped; a value known under several names keeps the first.
func NewKnownRedactor(known ...Known) *Redactor {
	keep := make([]Known, 0, len(known))
	seen := make(map[string]bool, len(known))
	for _, k := range known {
		k.Value = strings.TrimSpace(k.Value)
		if Candidate(k.Value) && !seen[k.Value] {
			seen[k.Value] = true
			keep = append(keep, k)
		}
	}
	m := newMatcher(keep)
	return &Redactor{m: m, n: len(m.marks)}
}

// Len is how many values r redacts.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return r.n
}

// Redact replaces every known value in s, then every credential shape
// (see the package function Redact).
func (r *Redactor) Redact(s string) string {
	return Redact(r.known(s))
}

// Scrub is Redact plus assignments to secret-looking names (see the
// package function Scrub).
func (r *Redactor) Scrub(s string) string {
	return Scrub(r.known(s))
}

func (r *Redactor) known(s string) string {
	if r == nil || r.m == nil || len(r.m.pats) == 0 {
		return s
	}
	s = r.m.replace(s, r.m.find(s))
	return r.m.redactDumps(s)
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
