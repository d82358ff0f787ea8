package secret

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestName(t *testing.T) {
	re := regexp.MustCompile(`(?i)(key|secret|token|password|passwd|credential|authorization|cookie)`)
	for _, s := range []string{
		"", "key", "KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "monkey", "KEYBOARD", "\u212aey", "to\u212aen",
		"\u017fecret", "DB_PASSWORD", "passwd", "AWS_SECRET_ACCESS_KEY", "credentials", "Authorization", "COOKIE",
		"PATH", "HOME", "GIT_AUTHOR_NAME", "EDITOR", "base_url", "\xff", "tok\xffen", "k\u0301ey",
	} {
		if got, want := Name(s), re.MatchString(s); got != want {
			t.Errorf("Name(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzName(f *testing.F) {
	re := regexp.MustCompile(`(?i)(key|secret|token|password|passwd|credential|authorization|cookie)`)
	for _, s := range []string{"key", "\u212aey", "x\u017fecretx", "tok\xffen", "Authorization"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Name(s), re.MatchString(s); got != want {
			t.Fatalf("Name(%q) = %v, want %v", s, got, want)
		}
	})
}

func TestFileName(t *testing.T) {
	for name, want := range map[string]bool{
		".env": true, ".ENV": true, "prod.env": true, "config/prod.env": true, "./.env": true, ".env.local": true,
		".env.production": true, "a.env.b": true, ".env/": true, "/x/y/.env.development.local": true,
		".env.example": false, ".env.sample": false, ".env.template": false, ".env.EXAMPLE": false,
		"env": false, ".envrc": false, "environment.go": false, "x.envy": false, "": false, "README.md": false,
		"venv": false, ".venv": false, "dotenv.go": false,
	} {
		if got := FileName(name); got != want {
			t.Errorf("FileName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestProcFile(t *testing.T) {
	for p, want := range map[string]bool{
		"/proc/1/environ": true, "/proc/self/environ": true, "/proc/123/mem": true, "/proc/1/task/2/environ": true,
		"/proc/1/task/2/mem": true, "/proc//1/environ": true, "/proc/1/../2/environ": true,
		"/proc/1/cmdline": false, "/proc/1/stat": false, "/proc/environ": false, "/proc/1/fd/3": false,
		"/tmp/proc/1/environ": false, "/proc/1/task/environ": false,
	} {
		if got := ProcFile(p); got != want {
			t.Errorf("ProcFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// Keys below are made up: the right shapes, no real credential.
const (
	antKey  = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
	ghToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ANTHROPIC_API_KEY=" + antKey, "ANTHROPIC_API_KEY=[REDACTED]"},
		{"key sk-proj-ABCDEFGHIJKLMNOPQRST1234 end", "key [REDACTED] end"},
		{"sk-1234567890abcdefghij", "[REDACTED]"},
		{ghToken + " gho_abcdefghijklmnopqrstuvwx", "[REDACTED] [REDACTED]"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"token: glpat-abcdefghij0123456789", "token: [REDACTED]"},
		{"xoxb-123456789012-abcdefghij", "[REDACTED]"},
		{"AKIAIOSFODNN7EXAMPLE is an id", "[REDACTED] is an id"},
		{"AIzaSyA-abcdefghijklmnopqrstuvwxyz0123456", "[REDACTED]"},
		{"sk_live_abcdefghijklmnop1234", "[REDACTED]"},
		{"a eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U b", "a [REDACTED] b"},
		{"https://bob:hunter2@example.com/x", "https://bob:[REDACTED]@example.com/x"},
		{"git clone https://x-access-token:abc@github.com/o/r", "git clone https://x-access-token:[REDACTED]@github.com/o/r"},
		{"postgres://u:p%40ss@db:5432/app", "postgres://u:[REDACTED]@db:5432/app"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: Bearer [REDACTED]"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "[REDACTED]\nafter"},
		{"-----BEGIN RSA PRIVATE KEY-----\ncut off", "[REDACTED]"},
		// Ordinary code and prose stay as they are.
		{"func task-management() { token := getToken() }", "func task-management() { token := getToken() }"},
		{"password = os.Getenv(\"DB_PASSWORD\")", "password = os.Getenv(\"DB_PASSWORD\")"},
		{"see https://example.com:8080/path and http://user@host/", "see https://example.com:8080/path and http://user@host/"},
		{"risk-assessment-for-everyone", "risk-assessment-for-everyone"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	tests := []struct{ in, want string }{
		{`api_key=abcdef123456`, `api_key=[REDACTED]`},
		{`{"token": "abcdefghij"}`, `{"token": "[REDACTED]"}`},
		{`password: hunter22`, `password: [REDACTED]`},
		{"panic: " + antKey, "panic: [REDACTED]"},
		{"no secrets here", "no secrets here"},
	}
	for _, tc := range tests {
		if got := Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor("plainvalue-no-shape-42", "us", "/home/u/.ssh/id_ed25519", "plainvalue-no-shape-42", "value")
	if r.Len() != 1 {
		t.Fatalf("Len = %d, want 1 (short values, paths and duplicates dropped)", r.Len())
	}
	in := "env: X=plainvalue-no-shape-42 KEYBOARD=us key=/home/u/.ssh/id_ed25519 " + ghToken
	want := "env: X=[REDACTED] KEYBOARD=us key=/home/u/.ssh/id_ed25519 [REDACTED]"
	if got := r.Redact(in); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if got := r.Scrub("api_key=abcdefgh plainvalue-no-shape-42"); got != "api_key=[REDACTED] [REDACTED]" {
		t.Errorf("Scrub = %q", got)
	}
	// Longest first: a value containing another is redacted whole.
	r = NewRedactor("abcdefgh", "abcdefgh-ijklmnop")
	if got := r.Redact("abcdefgh-ijklmnop abcdefgh"); got != "[REDACTED] [REDACTED]" {
		t.Errorf("nested values: %q", got)
	}
	var nilR *Redactor
	if got := nilR.Redact(antKey); got != Mark {
		t.Errorf("nil Redactor: %q", got)
	}
}

func TestArgs(t *testing.T) {
	in := []string{"serve", "--token", "abc123", "--api-key=xyz789", "--password", "p", "--client-secret", "s",
		"--key-file", "/etc/k.pem", "--api-key-env", "MY_KEY", "--url", "https://bob:pw@h/", ghToken, "--auth", "a:b",
		"--verbose", "--token="}
	want := []string{"serve", "--token", Mark, "--api-key=" + Mark, "--password", Mark, "--client-secret", Mark,
		"--key-file", "/etc/k.pem", "--api-key-env", "MY_KEY", "--url", "https://bob:" + Mark + "@h/", Mark, "--auth", Mark,
		"--verbose", "--token="}
	orig := append([]string(nil), in...)
	if diff := cmp.Diff(want, Args(in)); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("Args modified its input:\n%s", diff)
	}
}

func TestLooksLikeKey(t *testing.T) {
	for s, want := range map[string]bool{
		"ANTHROPIC_API_KEY": false, "LOCAL_API_KEY": false, "my_key": false, "OPENAI_API_KEY_2": false,
		antKey: true, ghToken: true, "AKIAIOSFODNN7EXAMPLE": true, "github_pat_11ABCDEFG0123456789_abcdefghijk": true,
		"aB3dE5gH7jK9mN1pQ3sT5vW7": true, "has space": true, "": false,
	} {
		if got := LooksLikeKey(s); got != want {
			t.Errorf("LooksLikeKey(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzRedact: redaction is idempotent, leaves no credential shape behind,
// and a known value never survives, wherever it is put.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", "x", antKey, "https://u:p@h/", "a" + ghToken + "b", "-----BEGIN EC PRIVATE KEY-----\nx", "sk-sk-sk-", "eyJ.eyJ."} {
		f.Add(s, "known-secret-value")
	}
	f.Fuzz(func(t *testing.T, s, known string) {
		once := Redact(s)
		if twice := Redact(once); twice != once {
			t.Fatalf("Redact not idempotent on %q: %q then %q", s, once, twice)
		}
		for _, sh := range compiled().tokens {
			for _, loc := range sh.re.FindAllStringIndex(once, -1) {
				if !sh.word || loc[0] == 0 || !wordByte(once[loc[0]-1]) {
					t.Fatalf("Redact(%q) = %q still holds a credential shape at %v", s, once, loc)
				}
			}
		}
		r := NewRedactor(known)
		if r.Len() == 0 || strings.Contains(Mark, known) || strings.ContainsAny(known, "[]") { // a value overlapping the mark itself
			return
		}
		got := r.Redact(s + known + s)
		if strings.Contains(got, known) {
			t.Fatalf("known value %q survives in %q", known, got)
		}
	})
}

// BenchmarkCompileShapes is what the first redaction in a process pays.
func BenchmarkCompileShapes(b *testing.B) {
	for b.Loop() {
		compileShapes()
	}
}

// BenchmarkRedactToolOutput: a 30,000-byte tool result (the default output
// limit) of ordinary text with one key in it, through a Redactor with a few
// known values, as every tool result is.
func BenchmarkRedactToolOutput(b *testing.B) {
	line := "main.go:12: func handler(w http.ResponseWriter, r *http.Request) { token := r.Header.Get(\"X\") }\n"
	text := strings.Repeat(line, 30000/len(line)) + antKey
	r := NewRedactor("known-value-one-1234", "known-value-two-5678", "known-value-three-9")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}
