package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/internal/hermetictest"
)

// TestRedactEndToEnd runs oceancode as a separate process — this test
// binary started as the CLI (TestMain, envRunAsCLI), with its real model
// client and real tools — for two attacks: secrets through commands, and
// escape sequences on a terminal.
func TestRedactEndToEnd(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("secrets through commands", func(t *testing.T) { secretsThroughCommands(t, self) })
	t.Run("run text on a terminal", func(t *testing.T) { runTextOnATerminal(t, self) })
}

func randValue(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func gitIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = dir, env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// secretsThroughCommands runs the real oceancode, with the sandbox off,
// in a real git repository whose committed and changed .env and
// config/prod.env hold secrets, and has the model read them every side
// way: git diff, git log -p, git show, grep -r, tar, a hex dump and a
// test's output; then the server token by cat, find -exec and the read
// tool. No value reaches the model's requests, the event stream or the
// session store's files; each shows as [redacted: NAME from FILE], and the
// token's reads are refused.
func secretsThroughCommands(t *testing.T, bin string) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	project := filepath.Join(base, "project")
	stateDir := filepath.Join(home, ".local", "state", "oceancode")
	for _, d := range []string{filepath.Join(project, ".oceancode"), filepath.Join(project, "config"), stateDir} {
		os.MkdirAll(d, 0o700)
	}
	apiKey, dbPass, newKey, prodKey, token := randValue("ak-"), randValue("pw-"), randValue("new-"), randValue("prod-"), randValue("tok-")
	os.WriteFile(filepath.Join(stateDir, "server.token"), []byte(token+"\n"), 0o600)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		hermetictest.EnvManagedDir + "=" + filepath.Join(base, "etc"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	write := func(rel, s string) { os.WriteFile(filepath.Join(project, rel), []byte(s), 0o644) }
	write(".env", "API_KEY="+apiKey+"\nDB_PASSWORD=\""+dbPass+"\"\nNODE_ENV=development\n")
	write(".env.example", "API_KEY=example-placeholder-value\n")
	write("config/prod.env", "PROD_KEY="+prodKey+"\n")
	write("run_tests.sh", "set -a; . ./.env; set +a\necho \"ok 1 - connected as admin:$DB_PASSWORD\"\n")
	gitIn(t, project, env, "init", "-q", "-b", "main")
	gitIn(t, project, env, "add", "-f", ".")
	gitIn(t, project, env, "commit", "-q", "-m", "add config")
	write(".env", "API_KEY="+newKey+"\nDB_PASSWORD=\""+dbPass+"\"\nNODE_ENV=development\n") // git diff shows old and new
	bash := func(id, cmd string) providertest.Turn {
		return providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: id, Name: "bash", Input: jsonCommand(cmd)}}}
	}
	tokenPath := filepath.Join(stateDir, "server.token")
	srv := providertest.New(t,
		bash("c1", "git diff"),
		bash("c2", "git log -p"),
		bash("c3", "git show HEAD"),
		bash("c4", "grep -r KEY ."),
		bash("c5", "tar cf - config | cat -v"),
		bash("c6", "git show HEAD | xxd"),
		bash("c7", "sh run_tests.sh"),
		bash("c8", "cat ~/.local/state/oceancode/server.token"),
		bash("c9", `find ~/.local/state -type f -exec cat {} \;`),
		providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c10", Name: "read", Input: []byte(`{"path": "` + tokenPath + `"}`)}}},
		providertest.Text("done"))
	// The user's config (a project's would need workspace trust).
	userConfig(t, home, `{"provider": {"mock": {"type": "openai", "base_url": "`+srv.OpenAIURL()+
		`", "api_key_env": "MOCK_KEY"}}, "model": "mock/m", "sandbox": {"enabled": false}}`)
	c := exec.Command(bin, "run", "--auto", "--format", "stream-json", "read the config")
	c.Dir, c.Env = project, append(env, "MOCK_KEY=mock-model-key-123456", envRunAsCLI+"=1")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 11 {
		t.Fatalf("%d model requests, want 11\n%s\n%s", len(reqs), stdout.String(), stderr.String())
	}
	var conv strings.Builder
	for _, r := range reqs {
		conv.Write(r.Body)
	}
	secrets := map[string]string{"API_KEY (old)": apiKey, "API_KEY": newKey, "DB_PASSWORD": dbPass, "PROD_KEY": prodKey, "server token": token}
	where := map[string]string{"the model's requests": conv.String(), "the event stream": stdout.String()}
	filepath.Walk(stateDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && p != tokenPath {
			b, _ := os.ReadFile(p)
			where[p] = string(b)
		}
		return nil
	})
	if _, ok := where[filepath.Join(stateDir, "sessions.db")]; !ok {
		t.Fatalf("no session store was written in %s", stateDir)
	}
	for place, text := range where {
		for name, v := range secrets {
			// Any 8 bytes of the value: a hex dump's character column
			// shows it 16 bytes at a time.
			for i := 0; i+8 <= len(v); i++ {
				if strings.Contains(text, v[i:i+8]) {
					j := strings.Index(text, v[i:i+8])
					t.Errorf("%s holds %q of %s's value %q: …%q…", place, v[i:i+8], name, v, text[max(0, j-150):min(len(text), j+60)])
					break
				}
			}
		}
	}
	body := strings.ReplaceAll(conv.String(), `\"`, `"`)
	for _, want := range []string{"[redacted: API_KEY from .env]", "[redacted: DB_PASSWORD from .env]", "[redacted: PROD_KEY from config/prod.env]",
		"example-placeholder-value", "NODE_ENV=development", "ok 1 - connected as admin:[redacted: DB_PASSWORD from .env]"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model was not sent %q", want)
		}
	}
	if n := strings.Count(body, "secrets files are never read into the model"); n < 3 {
		t.Errorf("the server token's cat, find -exec and read were refused %d times, want 3:\n%s", n, stderr.String())
	}
}

// runTextOnATerminal runs the real oceancode run on a pseudo-terminal
// (script(1)): the model's answer and a command's output carry OSC 52
// (clipboard write), OSC 0 (title), OSC 8 (link), ESC[2J (clear screen)
// and a C1 CSI; none of them reaches the terminal, their text does.
func runTextOnATerminal(t *testing.T, bin string) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script(1) (util-linux) is needed for a pty: %v", err)
	}
	base := t.TempDir()
	home := filepath.Join(base, "home")
	project := filepath.Join(base, "project")
	os.MkdirAll(filepath.Join(project, ".oceancode"), 0o755)
	os.MkdirAll(home, 0o755)
	evil := "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b[2J\u009b2Jtext"
	srv := providertest.New(t,
		providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c1", Name: "bash",
			Input: jsonCommand(`printf 'out\033]52;c;eA==\007\033]0;t\007\033[2Jput\n'`)}}},
		providertest.Text("answer "+evil+" end"))
	userConfig(t, home, `{"provider": {"mock": {"type": "openai", "base_url": "`+
		srv.OpenAIURL()+`", "api_key_env": "MOCK_KEY"}}, "model": "mock/m", "sandbox": {"enabled": false}}`)
	typescript := filepath.Join(base, "typescript")
	c := exec.Command("script", "-q", "-e", "-c", bin+" run --auto hello", typescript)
	c.Dir = project
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), hermetictest.EnvManagedDir + "=" + filepath.Join(base, "etc"),
		"MOCK_KEY=mock-model-key-123456", "TERM=xterm-256color", envRunAsCLI + "=1"}
	c.Stdin = strings.NewReader("")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("script: %v\n%q", err, out)
	}
	tty, err := os.ReadFile(typescript)
	if err != nil {
		t.Fatal(err)
	}
	for name, seq := range map[string]string{"OSC 52": "\x1b]52", "OSC 0": "\x1b]0;", "OSC 8": "\x1b]8;", "ESC[2J": "\x1b[2J", "C1 CSI": "\u009b"} {
		if bytes.Contains(tty, []byte(seq)) {
			t.Errorf("the terminal received %s:\n%q", name, tty)
		}
	}
	for _, want := range []string{"answer", "link", "text end", "output"} {
		if !bytes.Contains(tty, []byte(want)) {
			t.Errorf("the terminal did not show %q:\n%q", want, tty)
		}
	}
	if bytes.Contains(tty, []byte("\x1b")) {
		t.Logf("other escape sequences on the terminal (oceancode's own): %q", tty)
	}
}

// userConfig writes the user's oceancode.json under home's .config.
func userConfig(t *testing.T, home, body string) {
	t.Helper()
	d := filepath.Join(home, ".config", "oceancode")
	os.MkdirAll(d, 0o700)
	if err := os.WriteFile(filepath.Join(d, "oceancode.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
