package policycheck

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/schema"
)

func parse(t testing.TB, s string) *jsonpos.Doc {
	t.Helper()
	doc, err := jsonpos.Parse([]byte(s), jsonpos.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return doc
}

// want is one expected violation: pointer, keyword and a piece of the message.
type want struct{ ptr, keyword, msg string }

func check(t *testing.T, got []schema.Violation, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d violation(s), want %d:\n%s", len(got), len(wants), list(got))
	}
	for i, w := range wants {
		g := got[i]
		if g.Pointer != w.ptr || g.Keyword != w.keyword || !strings.Contains(g.Message, w.msg) || g.Line == 0 || g.File != "p.json" {
			t.Errorf("violation %d = %s (%s), want %s %s %q", i, g.Error(), g.Keyword, w.ptr, w.keyword, w.msg)
		}
	}
}

func list(v []schema.Violation) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(x.Error() + " [" + x.Keyword + "]\n")
	}
	return b.String()
}

func TestPayload(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		policy string
		want   []want
	}{
		{"valid", `{"schema_version":1,"disable_bypass_permissions":true,"allowed_permission_modes":["default","plan"],
			"min_sandbox_mode":"workspace-write","pins":{"sandbox.mode":"read-only","permission_mode":"plan","permission.bash[\"git push:*\"]":"ask","shell.allow":[]},
			"rules":{"deny":["Bash(curl:*)","Edit(src/**/secret*)"],"ask":["Read(**/.env)"]}}`, nil},
		{"every pin error", `{"pins":{"sandbox.mdoe":1,"nope":1,"limits.max_turns":"x","permission.bash[\"x":"deny"}}`, []want{
			{"/pins/sandbox.mdoe", KeywordPins, `names no config key`},
			{"/pins/nope", KeywordPins, `names no config key`},
			{"/pins/limits.max_turns", KeywordPins, `expected an integer`},
			{`/pins/permission.bash["x`, KeywordPins, `write the key as oceancode inspect prints it`},
		}},
		{"pinned allow rules", `{"pins":{"permission.bash":"allow","agents.plan.permission.edit[\"*\"]":"allow","permission":{"read":{"a":"deny","b":"allow"}},"shell.allow":["Bash(ls)"]}}`, []want{
			{"/pins/permission.bash", KeywordAllow, `sets the allow rule permission.bash`},
			{"/pins/permission.bash", KeywordContradiction, `lies inside pin "permission"`},
			{`/pins/agents.plan.permission.edit["*"]`, KeywordAllow, `requirements can only narrow`},
			{"/pins/permission", KeywordAllow, `sets the allow rule permission.read.b`},
			{"/pins/shell.allow", KeywordAllow, `adds 1 shell allow rule`},
		}},
		{"mode contradictions", `{"disable_bypass_permissions":true,"allowed_permission_modes":["bypassPermissions","default"],
			"pins":{"permission_mode":"bypassPermissions","agents":{"x":{"permission_mode":"plan"}}}}`, []want{
			{"/allowed_permission_modes/0", KeywordContradiction, `both in allowed_permission_modes`},
			{"/pins/permission_mode", KeywordContradiction, `disable_bypass_permissions locks out`},
			{"/pins/agents", KeywordContradiction, `sets agents.x.permission_mode to plan, which allowed_permission_modes (bypassPermissions, default) excludes`},
		}},
		{"sandbox contradictions", `{"min_sandbox_mode":"read-only","pins":{"sandbox":{"mode":"workspace-write","enabled":false}}}`, []want{
			{"/pins/sandbox", KeywordContradiction, `weaker than min_sandbox_mode read-only`},
			{"/pins/sandbox", KeywordContradiction, `turns the sandbox off`},
		}},
		{"rule contradictions", `{"rules":{"deny":["Bash(curl:*)","Edit([)"],"ask":["bash(curl:*)"]},"pins":{"permission.webfetch":"deny"},"x":{"deny":["WebFetch"]}}`, []want{
			{"/rules/deny/1", KeywordRule, `syntax error in pattern`},
			{"/rules/ask/0", KeywordContradiction, `both in rules.deny (/rules/deny/0) and rules.ask`},
		}},
		{"rule under a pin", `{"rules":{"deny":["WebFetch(example.com)"]},"pins":{"permission.webfetch":"ask"}}`, []want{
			{"/rules/deny/0", KeywordContradiction, `would be dropped`},
		}},
		{"mcp contradictions", `{"mcp":{"allowed_servers":[{"name":"a","command":"/a"},{"name":"a","url":"https://x"},{"name":"b","url":"https://b"}]},
			"pins":{"mcp.servers":{"a":{"command":"/other"},"b":{"url":"https://b"},"c":{"command":"/c"}}}}`, []want{
			{"/mcp/allowed_servers/1", KeywordContradiction, `listed twice`},
			{"/pins/mcp.servers", KeywordContradiction, `server "a" with an identity`},
			{"/pins/mcp.servers", KeywordContradiction, `server "c", which mcp.allowed_servers does not list`},
		}},
		{"mcp entries that do not pin what runs", `{"mcp":{"allowed_servers":[
			{"name":"py","command":"/usr/bin/python3","sha256":"00"},
			{"name":"c","command":"/usr/bin/python3","args":["-c","x"]},
			{"name":"m","command":"/usr/bin/python3","args":["-m","srv"]},
			{"name":"npx","command":"/usr/bin/npx","args":["-y","pkg@^1"]},
			{"name":"rel","command":"/usr/bin/node","args":["srv.js"]},
			{"name":"abs","command":"/usr/bin/node","args":["/opt/srv.js"],"sha256":"00"},
			{"name":"nosc","command":"/usr/bin/npx","args":["pkg@1.0.0"],"script_sha256":"00"},
			{"name":"env","command":"/usr/bin/env","args":["python3","srv.py"]},
			{"name":"ok","command":"/usr/bin/node","args":["srv.js"],"script_sha256":"00"},
			{"name":"bin","command":"/opt/srv","sha256":"00"}]},
			"pins":{"mcp.servers.c":{"command":"/usr/bin/python3","args":["-c","y"]}}}`, []want{
			{"/mcp/allowed_servers/0", KeywordMCPIdentity, `pin them with "args"`},
			{"/mcp/allowed_servers/2/args", KeywordMCPIdentity, `-m loads or runs code`},
			{"/mcp/allowed_servers/3/args", KeywordMCPIdentity, `pin it as "pkg@1.2.3"`},
			{"/mcp/allowed_servers/4/args", KeywordMCPIdentity, `by a relative path`},
			{"/mcp/allowed_servers/5", KeywordMCPIdentity, `not the script /opt/srv.js`},
			{"/mcp/allowed_servers/6/script_sha256", KeywordMCPIdentity, `runs package, not a script file`},
			{"/mcp/allowed_servers/7/args", KeywordMCPIdentity, `declare that program itself`},
			{"/pins/mcp.servers.c", KeywordContradiction, `arguments other than the ones`},
		}},
		{"bad rules in pins", `{"pins":{"shell.deny":["Bash(a:*b)","Edit(x)"],"shell.safe_list_extra":["make *"],"permission.read[\"x/a**\"]":"deny"}}`, []want{
			{"/pins/shell.deny", KeywordRule, `only at the end`},
			{"/pins/shell.deny", KeywordRule, `holds Bash`},
			{"/pins/shell.safe_list_extra", KeywordRule, `without wildcards`},
			{`/pins/permission.read["x~1a**"]`, KeywordRule, `whole path segment`},
		}},
		{"wrong types are left to the schema", `{"pins":[],"rules":{"deny":"x"},"allowed_permission_modes":7,"mcp":[]}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Payload("p.json", parse(t, c.policy))
			// Order within a line follows the column; compare sorted by
			// pointer within equal positions for a stable table.
			check(t, got, c.want)
		})
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	got := Config("p.json", parse(t, `{
  "permission": {"edit": {"[": "deny", "src/**": "allow"}, "read": "ask"},
  "agents": {"build": {"permission": {"glob": {"a**/b": "deny"}}}},
  "shell": {"allow": ["Bash(make:*)", "Read(x)", "Bash(a:* b)"], "deny": ["Bash(x"], "safe_list_extra": ["go *", "make lint"]},
  "sandbox": {"allow_hosts": ["ok.example.com", "https://x", "*.com"]}
}`))
	check(t, got, []want{
		{`/permission/edit/[`, KeywordRule, `syntax error in pattern`},
		{`/agents/build/permission/glob/a**~1b`, KeywordRule, `whole path segment`},
		{"/shell/allow/1", KeywordRule, `holds Bash`},
		{"/shell/allow/2", KeywordRule, `only at the end`},
		{"/shell/deny/0", KeywordRule, `missing closing parenthesis`},
		{"/shell/safe_list_extra/0", KeywordRule, `without wildcards`},
		{"/sandbox/allow_hosts/1", KeywordRule, `without a scheme or path`},
		{"/sandbox/allow_hosts/2", KeywordRule, `at least two labels`},
	})
}

// FuzzPayload: the check never panics, whatever the (parsed) payload.
func FuzzPayload(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":1,"pins":{"sandbox.mode":"read-only"},"rules":{"deny":["Bash(rm:*)"]}}`,
		`{"pins":{"permission":{"bash":{"*":"allow"}},"mcp.servers.a":{"command":"/a"}},"mcp":{"allowed_servers":[{"name":"a"}]}}`,
		`{"min_sandbox_mode":"read-only","pins":{"sandbox":{"enabled":false}},"allowed_permission_modes":["plan"]}`,
		`{"pins":{"agents":{"x":{"permission":{"read":{"[":"allow"}}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonpos.Parse(data, jsonpos.Options{MaxDepth: 32})
		if err != nil {
			return
		}
		for _, v := range Payload("p.json", doc) {
			if v.Message == "" || v.Keyword == "" {
				t.Fatalf("violation without a message or keyword: %+v", v)
			}
		}
		Config("p.json", doc)
	})
}
