package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/internal/secret"
)

func noEnv() ([]secret.Known, uint64) { return nil, 0 }

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	in := `# comment
export API_KEY=k3y-VALUE-0001 # trailing comment
DB_PASSWORD = 'pa ss#word 99'
MULTI="line one is long
line two is long"
ESCAPED="a\nb\"c-1234567"
YAML_STYLE: yaml-value-42
not an assignment
1BAD=xxxxxxxxxxx
EMPTY=
`
	want := []Var{{"API_KEY", "k3y-VALUE-0001"}, {"DB_PASSWORD", "pa ss#word 99"}, {"MULTI", "line one is long\nline two is long"},
		{"ESCAPED", "a\nb\"c-1234567"}, {"ESCAPED", `a\nb\"c-1234567`}, {"YAML_STYLE", "yaml-value-42"}, {"EMPTY", ""}}
	if diff := cmp.Diff(want, Parse([]byte(in))); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// TestRedactorFiles: every secrets file of the workspace (templates
// aside), named by its path; values too short or common are kept.
func TestRedactorFiles(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".env"), "API_KEY=Qx7-value-from-dotenv\nNODE_ENV=development\nPORT=8080\nSHORT=abc\n")
	write(t, filepath.Join(root, "config", "prod.env"), "DB_PASSWORD=\"Prod-Passw0rd!\"\n")
	write(t, filepath.Join(root, "deploy", ".env.local"), "TOKEN=local-token-value-9\n")
	write(t, filepath.Join(root, ".env.example"), "API_KEY=example-value-123\n")
	write(t, filepath.Join(root, ".git", "x.env"), "GIT=inside-git-dir-value\n")
	tok := filepath.Join(t.TempDir(), "server.token")
	write(t, tok, "c2VydmVyLXRva2VuLXZhbHVlLXJhbmRvbQ\n")
	r := New(Config{Root: root, Files: []File{{Path: tok, Name: "server token"}}, Env: noEnv})
	in := "+API_KEY=Qx7-value-from-dotenv\nDB=Prod-Passw0rd! T=local-token-value-9 ex=example-value-123 " +
		"NODE_ENV=development PORT=8080 SHORT=abc auth c2VydmVyLXRva2VuLXZhbHVlLXJhbmRvbQ"
	want := "+API_KEY=[redacted: API_KEY from .env]\nDB=[redacted: DB_PASSWORD from config/prod.env] T=[redacted: TOKEN from deploy/.env.local] " +
		"ex=example-value-123 NODE_ENV=development PORT=8080 SHORT=abc auth [redacted: server token from server.token]"
	if got := r.Redact(in); got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
}

// TestRedactorRereads: a secrets file changed, created beside the
// workspace's top, or created deeper and then named in a result, is read
// before the next text is redacted.
func TestRedactorRereads(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755)
	write(t, filepath.Join(root, ".env"), "API_KEY=first-value-0001\n")
	r := New(Config{Root: root, Env: noEnv})
	if got := r.Redact("v=first-value-0001"); got != "v=[redacted: API_KEY from .env]" {
		t.Fatalf("first: %q", got)
	}
	// The write tool replaces the file (a rename: new inode).
	tmp := filepath.Join(root, ".env.tmp-write")
	write(t, tmp, "API_KEY=second-value-0002\n")
	os.Rename(tmp, filepath.Join(root, ".env"))
	if got := r.Redact("v=second-value-0002"); got != "v=[redacted: API_KEY from .env]" {
		t.Errorf("after a rewrite: %q", got)
	}
	write(t, filepath.Join(root, ".env.production"), "PROD_KEY=prod-value-0003\n")
	if got := r.Redact("v=prod-value-0003"); got != "v=[redacted: PROD_KEY from .env.production]" {
		t.Errorf("a new file at the top: %q", got)
	}
	write(t, filepath.Join(root, "src", "deep", "app.env"), "DEEP=deep-value-0004\n")
	if got := r.Redact("src/deep/app.env:1:DEEP=deep-value-0004"); got != "src/deep/app.env:1:DEEP=[redacted: DEEP from src/deep/app.env]" {
		t.Errorf("a new file named in the text: %q", got)
	}
}

// TestRedactorEnvironment: the environment's secrets come first, under
// their variable's name, and a change of them is seen.
func TestRedactorEnvironment(t *testing.T) {
	ver := uint64(1)
	known := []secret.Known{{Name: "MODEL_CRED", Source: "environment", Value: "model-credential-01"}}
	r := New(Config{Env: func() ([]secret.Known, uint64) { return known, ver }})
	if got := r.Redact("k=model-credential-01"); got != "k=[redacted: MODEL_CRED from environment]" {
		t.Errorf("Redact: %q", got)
	}
	known, ver = append(known, secret.Known{Name: "provider key", Source: "config", Value: "later-key-value-02"}), 2
	if got := r.Redact("k=later-key-value-02"); got != "k=[redacted: provider key from config]" {
		t.Errorf("after a change: %q", got)
	}
	if got := r.Redact("short"); got != "short" {
		t.Errorf("short text: %q", got)
	}
	if strings.Contains(r.Redact("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"), "abcdefghij") {
		t.Errorf("credential shapes are not redacted")
	}
}

// BenchmarkNew is the walk a session does in the background at start
// (this repository) and its first result waits for.
func BenchmarkNew(b *testing.B) {
	root, _ := filepath.Abs("../..")
	for b.Loop() {
		New(Config{Root: root, Env: noEnv}).Current("")
	}
}

// BenchmarkRedactDelta is what each event text pays: the stat check of
// the workspace, its secrets files and their directories, then the pass
// over a short text.
func BenchmarkRedactDelta(b *testing.B) {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=first-value-0001\n"), 0o600)
	r := New(Config{Root: root, Env: noEnv})
	for b.Loop() {
		r.Redact("the model's answer, one word at a time")
	}
}
