package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/provider/remote"
	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/hermetictest"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/internal/secretenv/secretenvtest"
)

// secretsProbe is the bash command the model runs: it collects, into a
// file the model never sees, everything a command can read of its
// environment and of every process's environment and command line —
// oceancode's and its model client's included — and whether oceancode's
// memory opens. The file names come from files (names.txt), so the shell
// guard, which refuses /proc/*/environ and /proc/*/mem when it sees them,
// cannot: the kernel must hold on its own.
const secretsProbe = `{ read e m < names.txt; echo "== env"; env; for p in /proc/[0-9]*; do echo "== $p"; cat $p/$e; echo; cat $p/cmdline; echo; done; ` +
	`echo "== agent"; grep -E "^(Name|Uid)" /proc/$PPID/status; (exec 3</proc/$PPID/$m) && echo AGENT_MEM_"OPEN"; } > "$OUTDIR/probe.txt" 2>&1; echo probed`

// TestSecretsStayOutOfTheModel runs the real oceancode and oceancode-model
// binaries, as root and as nobody (uid 65534), with an API key under a
// name that does not look secret (api_key_env), a secret-named variable
// and a password in a URL in their environment. The model has bash probe
// every /proc route, print a file holding the key, and cat .env.
func TestSecretsStayOutOfTheModel(t *testing.T) {
	t.Parallel()
	base := secretenvtest.Dir(t, "oc-secrets-")
	bin := filepath.Join(base, "bin")
	for pkg, name := range map[string]string{"./../../oceancode": "oceancode", "./../../oceancode-model": remote.Binary} {
		hermetictest.GoBuild(t, filepath.Join(bin, name), pkg)
	}
	os.Chmod(bin, 0o755)
	hexOf := func() string {
		b := make([]byte, 12)
		rand.Read(b)
		return hex.EncodeToString(b)
	}
	for _, user := range secretenvtest.Users {
		t.Run(user.Name, func(t *testing.T) {
			modelKey := "plain-model-credential-" + hexOf() // no known shape: only its value says it is a key
			otherKey := "sk-ant-api03-" + hexOf()
			dbPass := hexOf()
			home := filepath.Join(base, user.Name, "home")
			project := filepath.Join(base, user.Name, "project")
			outDir := filepath.Join(base, user.Name, "out")
			for _, d := range []string{home, filepath.Join(project, ".oceancode"), outDir} {
				os.MkdirAll(d, 0o755)
			}
			os.WriteFile(filepath.Join(project, "names.txt"), []byte("environ mem\n"), 0o644)
			os.WriteFile(filepath.Join(project, "notes.txt"), []byte("key="+modelKey+"\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"), 0o644)
			os.WriteFile(filepath.Join(project, ".env"), []byte("MODEL_CREDENTIAL="+modelKey+"\n"), 0o644)
			srv := providertest.New(t,
				providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c1", Name: "bash", Input: jsonCommand(secretsProbe)}}},
				providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c2", Name: "bash", Input: jsonCommand("cat notes.txt")}}},
				providertest.Turn{ToolCalls: []providertest.ToolCall{{ID: "c3", Name: "bash", Input: jsonCommand("cat .env")}}},
				providertest.Text("done"))
			os.WriteFile(filepath.Join(project, ".oceancode", "oceancode.json"), []byte(`{"provider": {"mock": {"type": "openai", "base_url": "`+
				srv.OpenAIURL()+`", "api_key_env": "MODEL_CRED"}}, "model": "mock/m"}`), 0o644)
			filepath.Walk(filepath.Join(base, user.Name), func(p string, _ os.FileInfo, _ error) error { return user.Chown(p) })
			c := exec.Command(filepath.Join(bin, "oceancode"), "run", "--auto", "--trust-project", "--format", "json", "probe")
			c.Dir = project
			c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
				"XDG_STATE_HOME=" + filepath.Join(home, ".state"), hermetictest.EnvManagedDir + "=" + filepath.Join(base, user.Name, "etc"), "OUTDIR=" + outDir,
				"MODEL_CRED=" + modelKey, "ANTHROPIC_API_KEY=" + otherKey, "DATABASE_URL=postgres://app:" + dbPass + "@db/app"}
			c.SysProcAttr = &syscall.SysProcAttr{Credential: user.Cred}
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 || reqs[0].APIKey != modelKey {
				t.Fatalf("%d model requests (key presented %q), want 4 with the key\n%s", len(reqs), reqs[0].APIKey, out)
			}
			probe, err := os.ReadFile(filepath.Join(outDir, "probe.txt"))
			if err != nil || !strings.Contains(string(probe), "OUTDIR="+outDir) {
				t.Fatalf("the probe did not run or read its own environment (%v):\n%s\n%s", err, probe, out)
			}
			// (DATABASE_URL is not secret-named: children get it, so its
			// password shows in their environment; internal/secretenv's
			// test proves it is gone from oceancode's own block.)
			secrets := []string{modelKey, otherKey}
			for _, s := range secrets {
				if strings.Contains(string(probe), s) {
					t.Errorf("a command the model ran read %q:\n%s", s, grepLines(string(probe), s))
				}
			}
			if user.Cred != nil && strings.Contains(string(probe), "AGENT_MEM_OPEN") {
				t.Errorf("as nobody, a command opened oceancode's memory:\n%s", probe[strings.LastIndex(string(probe), "== agent"):])
			}
			// The model saw the file's key redacted, and the .env refusal.
			var conv strings.Builder
			for _, r := range reqs {
				conv.Write(r.Body)
			}
			for _, s := range append(secrets, "ghp_abcdefghij") {
				if strings.Contains(conv.String(), s) {
					t.Errorf("the model was sent %q", s)
				}
			}
			for _, want := range []string{`key=[redacted: MODEL_CRED from environment]`, `token [REDACTED]`, `secrets files are never read into the model`} {
				if !strings.Contains(conv.String(), want) {
					t.Errorf("the model was not sent %q:\n%s", want, conv.String())
				}
			}
			// Nor did the session store keep them.
			state := filepath.Join(home, ".state")
			filepath.Walk(state, func(p string, fi os.FileInfo, err error) error {
				if err != nil || fi.IsDir() {
					return nil
				}
				b, _ := os.ReadFile(p)
				for _, s := range append(secrets, "ghp_abcdefghij") {
					if strings.Contains(string(b), s) {
						t.Errorf("%s holds %q", p, s)
					}
				}
				return nil
			})
		})
	}
}

func jsonCommand(cmd string) []byte {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestSandboxHelperKeepsItsEnvironment: oceancode re-executed as the
// sandbox helper hands child_env.keep's variables on to the command.
func TestSandboxHelperKeepsItsEnvironment(t *testing.T) {
	t.Parallel()
	if secretenv.SandboxHelperArg != sandbox.HelperArg {
		t.Fatalf("secretenv.SandboxHelperArg = %q, sandbox.HelperArg = %q", secretenv.SandboxHelperArg, sandbox.HelperArg)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "oceancode") // alone: no oceancode-sandbox beside it, so it is its own helper
	build := exec.Command("go", "build", "-o", bin, "./../../oceancode")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws := filepath.Join(dir, "ws")
	// The user's config (a project's child_env.keep applies only in a
	// trusted workspace, docs/trust.md).
	os.MkdirAll(filepath.Join(dir, ".config", "oceancode"), 0o755)
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(dir, ".config", "oceancode", "oceancode.json"), []byte(`{"child_env": {"keep": ["GITHUB_TOKEN"]}}`), 0o644)
	for _, mode := range []string{"workspace-write", "danger-full-access"} {
		c := exec.Command(bin, "sandbox", "--mode", mode, "--", "sh", "-c", `echo "token=$GITHUB_TOKEN other=$OTHER_TOKEN"`)
		c.Dir = ws
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
			"XDG_STATE_HOME=" + filepath.Join(dir, ".state"), "GITHUB_TOKEN=kept-on-purpose", "OTHER_TOKEN=stripped"}
		out, err := c.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "token=kept-on-purpose other=\n") {
			t.Errorf("--mode %s: %v: %s, want the kept token only", mode, err, out)
		}
	}
}
