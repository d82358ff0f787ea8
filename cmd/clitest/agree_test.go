package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/sandbox/egress"
	admincli "github.com/oceancode/oceancode/cmd/oceanadmin/cli"
	agentcli "github.com/oceancode/oceancode/cmd/oceancode/cli"
	"github.com/oceancode/oceancode/internal/cliapp"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/policycheck"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/signing"
)

// agreeCase is one policy (and optionally a managed config) deployed on a
// machine. ok says whether sessions can start there.
type agreeCase struct {
	name    string
	policy  string // requirements payload as an admin writes it ("" = none)
	managed string // managed.json ("" = none)
	user    string // the user's oceancode.json ("" = none)
	ok      bool
	want    string // a piece of the message oceanadmin validate prints
	// machine: the policy is valid, but this machine (agent version
	// agreeVersion) refuses it: validate and verify accept it, simulate
	// (with the same agent version) and the agent refuse.
	machine bool
}

// agreeVersion is the agent version the corpus runs under (injected:
// never the build's own).
const agreeVersion = "1.5.0"

// agreeCorpus covers every class policycheck refuses and its valid
// neighbours.
var agreeCorpus = []agreeCase{
	{name: "minimal", policy: `{"schema_version":1}`, ok: true},
	{name: "the documented example", ok: true, policy: `{"schema_version":1,"org":"acme","disable_bypass_permissions":true,
		"allowed_permission_modes":["default","acceptEdits","plan","dontAsk"],"min_sandbox_mode":"workspace-write",
		"pins":{"sandbox.mode":"workspace-write","child_env.strip":["AWS_*"]},"rules":{"deny":["Bash(curl:*)"],"ask":["Bash(git push:*)"]}}`},
	{name: "pin a rule to ask", policy: `{"schema_version":1,"pins":{"permission.bash[\"git push:*\"]":"ask"}}`, ok: true},
	{name: "pin a rule to deny", policy: `{"schema_version":1,"pins":{"permission.webfetch":"deny"}}`, ok: true},
	{name: "pin shell.allow empty", policy: `{"schema_version":1,"pins":{"shell.allow":[]}}`, ok: true},
	{name: "pin the allowed mode", policy: `{"schema_version":1,"allowed_permission_modes":["plan","default"],"pins":{"permission_mode":"plan"}}`, ok: true},
	{name: "pin a mode stronger than the minimum", policy: `{"schema_version":1,"min_sandbox_mode":"workspace-write","pins":{"sandbox.mode":"read-only"}}`, ok: true},
	{name: "pinned MCP server on the allow-list", ok: true, policy: `{"schema_version":1,"mcp":{"allowed_servers":[{"name":"gh","command":"/usr/bin/gh-mcp"}]},
		"pins":{"mcp.servers.gh":{"command":"/usr/bin/gh-mcp"}}}`},
	{name: "file rule with a good glob", policy: `{"schema_version":1,"rules":{"deny":["Edit(src/**/secret*)"]}}`, ok: true},

	{name: "pinned allow rule", policy: `{"schema_version":1,"pins":{"permission.bash[\"git status\"]":"allow"}}`, want: "requirements can only narrow"},
	{name: "pinned allow for a whole tool", policy: `{"schema_version":1,"pins":{"permission.bash":"allow"}}`, want: "sets the allow rule permission.bash"},
	{name: "pinned permission object with an allow", policy: `{"schema_version":1,"pins":{"permission":{"edit":{"src/**":"allow"}}}}`, want: "sets the allow rule"},
	{name: "pinned agent allow rule", policy: `{"schema_version":1,"pins":{"agents.build.permission.bash":"allow"}}`, want: "requirements can only narrow"},
	{name: "pinned shell allow list", policy: `{"schema_version":1,"pins":{"shell.allow":["Bash(rm:*)"]}}`, want: "shell allow rule"},
	{name: "bypass locked out and pinned", policy: `{"schema_version":1,"disable_bypass_permissions":true,"pins":{"permission_mode":"bypassPermissions"}}`, want: "locks out"},
	{name: "bypass locked out and allowed", policy: `{"schema_version":1,"disable_bypass_permissions":true,"allowed_permission_modes":["bypassPermissions"]}`, want: "both in allowed_permission_modes"},
	{name: "pinned mode outside the allowed modes", policy: `{"schema_version":1,"allowed_permission_modes":["default"],"pins":{"permission_mode":"plan"}}`, want: "excludes"},
	{name: "pinned agent mode outside the allowed modes", policy: `{"schema_version":1,"allowed_permission_modes":["default"],"pins":{"agents.build.permission_mode":"dontAsk"}}`, want: "excludes"},
	{name: "pinned sandbox weaker than the minimum", policy: `{"schema_version":1,"min_sandbox_mode":"read-only","pins":{"sandbox.mode":"workspace-write"}}`, want: "weaker than min_sandbox_mode"},
	{name: "pinned sandbox object weaker than the minimum", policy: `{"schema_version":1,"min_sandbox_mode":"workspace-write","pins":{"sandbox":{"mode":"danger-full-access"}}}`, want: "weaker than min_sandbox_mode"},
	{name: "sandbox pinned off under a minimum", policy: `{"schema_version":1,"min_sandbox_mode":"read-only","pins":{"sandbox.enabled":false}}`, want: "turns the sandbox off"},
	{name: "rule both denied and asked", policy: `{"schema_version":1,"rules":{"deny":["Bash(curl:*)"],"ask":["Bash(curl:*)"]}}`, want: "both in rules.deny"},
	{name: "rule dropped by a pin", policy: `{"schema_version":1,"rules":{"deny":["Bash(curl:*)"]},"pins":{"permission.bash":"ask"}}`, want: "would be dropped"},
	{name: "overlapping pins", policy: `{"schema_version":1,"pins":{"sandbox":{"mode":"read-only"},"sandbox.mode":"workspace-write"}}`, want: "lies inside pin"},
	{name: "duplicate MCP allow-list name", policy: `{"schema_version":1,"mcp":{"allowed_servers":[{"name":"gh","command":"/a"},{"name":"gh","command":"/b"}]}}`, want: "listed twice"},
	{name: "pinned MCP server not allowed", policy: `{"schema_version":1,"mcp":{"allowed_servers":[]},"pins":{"mcp.servers.gh":{"command":"/usr/bin/gh-mcp"}}}`, want: "does not list"},
	{name: "pinned MCP server with another identity", policy: `{"schema_version":1,"mcp":{"allowed_servers":[{"name":"gh","command":"/a"}]},"pins":{"mcp.servers.gh":{"command":"/b"}}}`, want: "identity"},
	{name: "bad glob in a rule", policy: `{"schema_version":1,"rules":{"deny":["Edit([)"]}}`, want: "syntax error in pattern"},
	{name: "bad glob in a pinned rule", policy: `{"schema_version":1,"pins":{"permission.read[\"a**b/c\"]":"deny"}}`, want: "whole path segment"},
	{name: "bad shell pattern in a pin", policy: `{"schema_version":1,"pins":{"shell.deny":["Bash(a:*b:*)"]}}`, want: "only at the end"},
	{name: "several pin errors", policy: `{"schema_version":1,"pins":{"sandbox.mdoe":"x","limits.max_turns":"many"}}`, want: "names no config key"},

	{name: "version floor met", policy: `{"schema_version":1,"min_version":"1.5.0"}`, ok: true},
	{name: "allowed models and endpoints", ok: true, policy: `{"schema_version":1,"allowed_models":["anthropic/claude-*"],
		"allowed_providers":[{"type":"anthropic"},{"type":"openai","hosts":["llm.corp.example:443","*.gw.corp.example"]}],"pins":{"model":"anthropic/claude-sonnet-4-5"}}`},
	{name: "instructions", policy: `{"schema_version":1,"instructions":"Never paste customer data."}`, ok: true},
	{name: "default-deny posture", policy: `{"schema_version":1,"shell_posture":"default-deny"}`, ok: true},
	{name: "scopes", ok: true, policy: `{"schema_version":1,"allowed_permission_modes":["default","plan"],"scopes":[{"name":"all","match":{"hosts":["*"]},
		"require":{"allowed_permission_modes":["plan"],"shell_posture":"default-deny","min_version":"1.0.0","rules":{"deny":["Bash(curl:*)"]}}}]}`},
	{name: "version floor above the agent", policy: `{"schema_version":1,"min_version":"2.0.0"}`, machine: true, want: ""},
	{name: "scoped version floor above the agent", policy: `{"schema_version":1,"scopes":[{"name":"all","match":{"hosts":["*"]},"require":{"min_version":"9.0.0"}}]}`, machine: true},
	{name: "bad min_version", policy: `{"schema_version":1,"min_version":"2.0"}`, want: "must be a semantic version"},
	{name: "pinned model outside allowed_models", policy: `{"schema_version":1,"allowed_models":["anthropic/*"],"pins":{"model":"openai/gpt-5"}}`, want: "excludes"},
	{name: "bad provider host", policy: `{"schema_version":1,"allowed_providers":[{"type":"openai","hosts":["https://llm.corp"]}]}`, want: "allowed_providers host"},
	{name: "unknown posture", policy: `{"schema_version":1,"shell_posture":"strict"}`, want: "shell_posture"},
	{name: "scope listed twice", policy: `{"schema_version":1,"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"shell_posture":"default-deny"}},{"name":"a","match":{"groups":["h"]},"require":{"instructions":"x"}}]}`, want: "listed twice"},
	{name: "scope modes disjoint", policy: `{"schema_version":1,"allowed_permission_modes":["default"],"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"allowed_permission_modes":["plan"]}}]}`, want: "none of which"},
	{name: "scope with a bad rule", policy: `{"schema_version":1,"scopes":[{"name":"a","match":{"groups":["g"]},"require":{"rules":{"ask":["Edit(src/a**/x)"]}}}]}`, want: "whole path segment"},

	{name: "managed: good rules", managed: `{"permission":{"edit":{"src/**":"allow"}},"shell":{"allow":["Bash(make test:*)"]}}`, ok: true},
	{name: "managed: bad glob", managed: `{"permission":{"edit":{"[":"deny"}}}`, want: "syntax error in pattern"},
	{name: "managed: shell rule of another tool", managed: `{"shell":{"deny":["Edit(x)"]}}`, want: "holds Bash"},
	{name: "managed: bad shell pattern", managed: `{"shell":{"allow":["Bash(git :* push:*)"]}}`, want: "only at the end"},
	{name: "managed: wildcard in the safe list", managed: `{"shell":{"safe_list_extra":["make *"]}}`, want: "without wildcards"},
	{name: "managed: agent rule with a bad glob", managed: `{"agents":{"build":{"permission":{"read":{"x/a**":"deny"}}}}}`, want: "whole path segment"},
	{name: "user: an unknown key is ignored", user: `{"sandox":{"mode":"read-only"},"permission":{"read":"allow"}}`, ok: true, want: "warning: unknown key"},
	{name: "managed: an unknown key refuses", managed: `{"sandox":{"mode":"read-only"}}`, want: `unknown key "sandox"`},
	{name: "user: bad glob", user: `{"permission":{"read":{"a/b**":"deny"}}}`, want: "whole path segment"},
	{name: "user: bad shell rule", user: `{"shell":{"deny":["Bash(rm"]}}`, want: "missing closing parenthesis"},
	{name: "managed: a bad allow_hosts entry", managed: `{"sandbox":{"allow_hosts":["https://api.example.com"]}}`, want: "without a scheme or path"},
	{name: "managed: good allow_hosts", managed: `{"sandbox":{"allow_hosts":["api.example.com:443","*.example.org"]}}`, ok: true},
	{name: "managed: over the depth cap", managed: `{"model":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, want: "maximum depth of 64"},
	{name: "managed: over the size cap", managed: `{"model":"` + strings.Repeat("x", 4<<20) + `"}`, want: "4 MiB"},
}

// TestAdminAndAgentAgree deploys each policy of the corpus on a machine and
// checks that oceanadmin's verdicts (validate, verify, simulate) equal the
// agent's (oceancode permission check, which loads the configuration and
// builds the permission engine as every session does).
func TestAdminAndAgentAgree(t *testing.T) {
	key := fixedKey("agree admin")
	savedVersion := version.Version
	version.Version = agreeVersion // the agent's and simulate's version
	t.Cleanup(func() { version.Version = savedVersion })
	for _, c := range agreeCorpus {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			project, home, etc := filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "etc", "oceancode")
			for _, d := range []string{filepath.Join(project, ".git"), home, etc} {
				mustWrite(t, filepath.Join(d, ".keep"), "")
			}
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state")}
			pub := filepath.Join(root, "admin.pub")
			mustWrite(t, pub, key.Public().String()+"\n")

			var adminOK []bool
			var out string
			simArgs := []string{"simulate"}
			if c.policy != "" {
				// The machine trusts the admin key (the admin anchor), and
				// simulate stands in for it with --pubkey.
				mustWrite(t, filepath.Join(etc, requirements.AnchorFile), key.Public().String()+"\n")
				simArgs = append(simArgs, "--pubkey", pub)
				policy := filepath.Join(root, "policy.json")
				mustWrite(t, policy, c.policy)
				code, o := runAdmin(t, env, root, "validate", policy)
				out += o
				adminOK = append(adminOK, code == 0)
				if code != 0 && code != 3 {
					t.Errorf("validate exited %d, want 0 or 3:\n%s", code, o)
				}
				envelope := filepath.Join(etc, "requirements.json")
				mustWrite(t, envelope, string(signUnchecked(t, key, c.policy)))
				code, o = runAdmin(t, env, root, "verify", "--pubkey", pub, envelope)
				adminOK = append(adminOK, code == 0)
				if code != 0 && code != 4 {
					t.Errorf("verify exited %d, want 0 or 4:\n%s", code, o)
				}
				simArgs = append(simArgs, "--requirements", envelope)
			}
			if c.managed != "" {
				managed := filepath.Join(etc, "managed.json")
				mustWrite(t, managed, c.managed)
				code, o := runAdmin(t, env, root, "validate", managed)
				out += o
				adminOK = append(adminOK, code == 0)
				if code != 0 && code != 3 {
					t.Errorf("validate exited %d, want 0 or 3:\n%s", code, o)
				}
				simArgs = append(simArgs, "--managed", managed)
			}
			if c.user != "" {
				user := filepath.Join(home, ".config", "oceancode", "oceancode.json")
				mustWrite(t, user, c.user)
				code, o := runAdmin(t, env, root, "validate", "--kind", "config", user)
				out += o
				adminOK = append(adminOK, code == 0)
				if code != 0 && code != 3 {
					t.Errorf("validate exited %d, want 0 or 3:\n%s", code, o)
				}
				simArgs = append(simArgs, "--user", user)
			}
			code, o := runAdmin(t, env, root, simArgs...)
			adminOK = append(adminOK, code == 0)
			if code != 0 && code != 3 && code != 4 {
				t.Errorf("simulate exited %d:\n%s", code, o)
			}

			agentCode, agentOut := runAgent(t, env, project, etc, "permission", "check", "bash", "ls")
			agentOK := agentCode == 0
			t.Logf("agent exit %d admin %v", agentCode, adminOK)
			if !agentOK && agentCode != 3 && agentCode != 4 {
				t.Errorf("oceancode exited %d, want 0, 3 or 4:\n%s", agentCode, agentOut)
			}
			if c.machine {
				// validate and verify judge the policy, not this machine.
				for _, a := range adminOK[:len(adminOK)-1] {
					if !a {
						t.Errorf("oceanadmin refuses a valid policy:\n%s", out)
					}
				}
				adminOK = adminOK[len(adminOK)-1:]
				if agentCode != 4 {
					t.Errorf("oceancode exited %d below the version floor, want 4:\n%s", agentCode, agentOut)
				}
			}
			for i, a := range adminOK {
				if a != agentOK {
					t.Errorf("admin verdict %d is ok=%v, the agent's is ok=%v (exit %d):\nadmin:\n%s\nagent:\n%s", i, a, agentOK, agentCode, out, agentOut)
				}
			}
			if agentOK != c.ok {
				t.Errorf("sessions can start: %v, want %v:\n%s", agentOK, c.ok, agentOut)
			}
			if c.want != "" && !strings.Contains(out, c.want) {
				t.Errorf("oceanadmin validate does not say %q:\n%s", c.want, out)
			}
		})
	}
}

// TestRuleSyntaxAgrees: policycheck.ParseRule accepts exactly the rules the
// permission engine compiles.
func TestRuleSyntaxAgrees(t *testing.T) {
	t.Parallel()
	tools := []string{"Bash", "bash", "Edit", "Write", "apply_patch", "Read", "Grep", "Glob", "List", "WebFetch", "mcp", "external_directory", "*", "Ba!sh", "my-tool.v2", ""}
	patterns := []string{"", "*", "**", "src/**", "src/**/*.go", "[", "a[b", "a**", "**/x", "x/**b", "./a/*", "a\\", "git push:*", "x/[a-", "*.env", "a/b/"}
	for _, tool := range tools {
		for _, pat := range patterns {
			for _, s := range []string{tool + "(" + pat + ")", tool, tool + "(" + pat, tool + ")"} {
				_, err := permission.ParseRule(s, permission.Deny, provenance.Origin{})
				_, _, perr := policycheck.ParseRule(s)
				if (err == nil) != (perr == nil) {
					t.Errorf("rule %q: engine says %v, policycheck says %v", s, err, perr)
				}
			}
		}
	}
}

// TestHostRuleAgrees: policycheck.HostRule accepts exactly the
// sandbox.allow_hosts entries the egress proxy parses.
func TestHostRuleAgrees(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "example.com", "api.example.com:443", "*.example.com", "*.com", "Example.COM.", "a_b.example",
		"http://x", "x/y", "user@x", "x:0", "x:65536", "x:", ":80", "127.0.0.1", "127.1", "2130706433", "0x7f.1", "[::1]", "[::1]:8080",
		"::1", "fe80::1%eth0", "[fe80::1%eth0]", "[1.2.3.4]", "[::1", "[::1]x", "-a.example", "a-.example", "a*b.example", "münchen.de",
		"xn--mnchen-3ya.de", strings.Repeat("a", 64) + ".com", strings.Repeat("a.", 127) + "com", "a..b", "*.*.example.com", "1.2.3.4:22"} {
		_, err := egress.ParseRule(s)
		perr := policycheck.HostRule(s)
		if (err == nil) != (perr == nil) {
			t.Errorf("allow_hosts %q: proxy says %v, policycheck says %v", s, err, perr)
		}
	}
}

func fixedKey(name string) signing.PrivateKey {
	k, err := signing.GenerateKey(name)
	if err != nil {
		panic(err)
	}
	return k
}

// signUnchecked signs a policy the way oceanadmin sign would, without its
// checks: an agent must refuse on its own what sign would not have signed.
func signUnchecked(t *testing.T, key signing.PrivateKey, policy string) []byte {
	t.Helper()
	return signPolicyUnchecked(key, []byte(policy))
}

// signPolicyUnchecked fills in serial 1 and a validity from an hour ago for
// a day, and signs. It panics on a policy that is not a JSON object.
func signPolicyUnchecked(key signing.PrivateKey, policy []byte) []byte {
	var p map[string]any
	if err := json.Unmarshal(policy, &p); err != nil {
		panic(err)
	}
	now := time.Now().UTC()
	p["serial"] = 1
	p["issued_at"] = now.Add(-time.Hour).Format(time.RFC3339)
	p["expires_at"] = now.Add(24 * time.Hour).Format(time.RFC3339)
	body, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	env, err := signing.Sign(requirements.PayloadType, body, key)
	if err != nil {
		panic(err)
	}
	b, err := env.Marshal()
	if err != nil {
		panic(err)
	}
	return b
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testApp(env map[string]string, dir string) (*cliapp.App, *bytes.Buffer) {
	var out bytes.Buffer
	return &cliapp.App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out,
		Getenv: func(k string) string { return env[k] }, Dir: dir}, &out
}

func runAdmin(t *testing.T, env map[string]string, dir string, argv ...string) (int, string) {
	t.Helper()
	app, out := testApp(env, dir)
	code := admincli.Main(context.Background(), argv, app)
	return code, out.String()
}

// runAgent runs oceancode in-process in dir, on the managed dir managed.
func runAgent(t *testing.T, env map[string]string, dir, managed string, argv ...string) (int, string) {
	t.Helper()
	app, out := testApp(env, dir)
	app.ManagedDir = managed
	code := agentcli.Main(context.Background(), argv, app, agentcli.Options{})
	return code, out.String()
}
