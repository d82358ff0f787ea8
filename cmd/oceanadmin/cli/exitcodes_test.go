package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/internal/exitcode"
)

// TestExitCodes drives every oceanadmin subcommand's error paths and checks
// the exit status docs/cli.md gives each kind of problem (a usage or
// validation problem is never 1) and that the message names the file and
// what to do.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	env := map[string]string{}
	run := func(argv ...string) (int, string) {
		var out bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] }}
		return Main(context.Background(), argv, app), out.String()
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Fixtures: an unencrypted key, an encrypted one, a policy, its envelope.
	mustRun := func(argv ...string) {
		t.Helper()
		if code, out := run(argv...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", argv, code, out)
		}
	}
	mustRun("keygen", "--unencrypted", "-o", "admin.key")
	write("pw", "secret\n")
	mustRun("keygen", "--passphrase-file", "pw", "-o", "enc.key")
	write("policy.json", `{"schema_version": 1, "rules": {"deny": ["Bash(curl:*)"]}}`)
	write("bad-policy.json", `{"schema_version": 1, "pins": {"permission.bash": "allow"}}`)
	write("managed.json", `{"sandbox": {"mode": "read-only"}}`)
	write("bad-managed.json", `{"sandbox": {"mode": "off"}}`)
	write("empty-pw", "\n")
	write("unsigned.json", `{"payloadType":"application/vnd.oceancode.requirements+json","payload":"eyJzY2hlbWFfdmVyc2lvbiI6MX0=","signatures":[]}`)
	write("broken-policy.json", "{\"schema_version\": 1,\n \"pins\": {,}}")
	write("not-a-dir", "")
	mustRun("sign", "-k", "admin.key", "--issued-at", "2026-11-29T12:00:00Z", "policy.json", "-o", "requirements.json")
	// tampered.json: the same envelope with one character of the payload's
	// base64 changed.
	data, err := os.ReadFile("requirements.json")
	if err != nil {
		t.Fatal(err)
	}
	var envelope map[string]any
	if err := json.Unmarshal(data, &envelope); err != nil {
		t.Fatal(err)
	}
	p := []byte(envelope["payload"].(string))
	p[10] ^= 'A' ^ 'B'
	envelope["payload"] = string(p)
	data, _ = json.Marshal(envelope)
	write("tampered.json", string(data))
	mustRun("keygen", "--unencrypted", "-o", "other.key")
	// current.json: signed now, so it verifies whenever the test runs.
	mustRun("sign", "-k", "admin.key", "policy.json", "-o", "current.json")
	write("settings.json", `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	write("imported/managed.json", "{}")
	pkg := func(extra ...string) []string {
		return append([]string{"package", "--format", "deb", "--requirements", "current.json", "--trusted-keys", "admin.pub", "-o", "dist"}, extra...)
	}

	at := "--at=2026-12-01T00:00:00Z"
	cases := []struct {
		name string
		argv []string
		code int
		msg  string // regexp the output must match
	}{
		{"unknown command", []string{"frobnicate"}, exitcode.Usage, `unknown command`},
		{"unknown flag", []string{"validate", "--frob", "x"}, exitcode.Usage, `unknown flag`},

		{"keygen without -o", []string{"keygen"}, exitcode.Usage, `required flag`},
		{"keygen over an existing key", []string{"keygen", "--unencrypted", "-o", "admin.key"}, exitcode.Usage, `admin.key already exists; choose another path or pass --force`},
		{"keygen without a passphrase source", []string{"keygen", "-o", "new.key"}, exitcode.Usage, `no terminal to ask: pass --passphrase-file`},
		{"keygen with a missing passphrase file", []string{"keygen", "--passphrase-file", "nope", "-o", "new.key"}, exitcode.Usage, `read passphrase file nope`},
		{"keygen with an empty passphrase file", []string{"keygen", "--passphrase-file", "empty-pw", "-o", "new.key"}, exitcode.Usage, `the file is empty`},
		{"keygen into a path that cannot be a directory", []string{"keygen", "--unencrypted", "-o", "not-a-dir/x.key"}, exitcode.Error, `not-a-dir`},

		{"sign without -k", []string{"sign", "policy.json"}, exitcode.Usage, `required flag\(s\) "key"`},
		{"sign a missing policy", []string{"sign", "-k", "admin.key", "nope.json"}, exitcode.Usage, `read policy nope.json: no such file`},
		{"sign an invalid policy", []string{"sign", "-k", "admin.key", "bad-policy.json", "-o", "x.json"}, exitcode.Invalid, `bad-policy.json:1:\d+: /pins/permission.bash: .*requirements can only narrow`},
		{"sign a config file", []string{"sign", "-k", "admin.key", "managed.json", "-o", "x.json"}, exitcode.Invalid, `the content is a config file, not a requirements policy`},
		{"sign an envelope", []string{"sign", "-k", "admin.key", "requirements.json", "-o", "x.json"}, exitcode.Usage, `already a signed envelope`},
		{"sign with a public key", []string{"sign", "-k", "admin.pub", "policy.json", "-o", "x.json"}, exitcode.Usage, `admin.pub is a public key; give the private key \(admin.key\)`},
		{"sign with a missing key", []string{"sign", "-k", "nope.key", "policy.json", "-o", "x.json"}, exitcode.Usage, `read private key nope.key: no such file`},
		{"sign with a file that is no key", []string{"sign", "-k", "policy.json", "policy.json", "-o", "x.json"}, exitcode.Usage, `read private key policy.json`},
		{"sign without the passphrase", []string{"sign", "-k", "enc.key", "policy.json", "-o", "x.json"}, exitcode.Usage, `a passphrase is needed`},
		{"sign with the wrong passphrase", []string{"sign", "-k", "enc.key", "--passphrase-file", "managed.json", "policy.json", "-o", "x.json"}, exitcode.Usage, `wrong passphrase`},
		{"sign with a bad --expires", []string{"sign", "-k", "admin.key", "--expires", "soon", "policy.json", "-o", "x.json"}, exitcode.Usage, `parse --expires "soon"`},
		{"sign with a bad --issued-at", []string{"sign", "-k", "admin.key", "--issued-at", "today", "policy.json", "-o", "x.json"}, exitcode.Usage, `parse --issued-at "today"`},
		{"sign with a serial not above", []string{"sign", "-k", "admin.key", "--serial", "1", "policy.json"}, exitcode.Usage, `--serial 1 is not above serial 1 of requirements.json`},
		{"sign over a file that is no envelope", []string{"sign", "-k", "admin.key", "policy.json", "-o", "managed.json"}, exitcode.Usage, `the output managed.json exists and is not a requirements envelope`},
		{"append to a policy", []string{"sign", "--append", "-k", "other.key", "policy.json"}, exitcode.Usage, `policy.json: .*not signed.*--append adds signatures`},
		{"append to a missing envelope", []string{"sign", "--append", "-k", "other.key", "nope.json"}, exitcode.Usage, `read envelope nope.json: no such file`},

		{"verify without --pubkey", []string{"verify", "requirements.json"}, exitcode.Usage, `required flag\(s\) "pubkey"`},
		{"verify a missing file", []string{"verify", "--pubkey", "admin.pub", "nope.json"}, exitcode.Usage, `read requirements nope.json: no such file`},
		{"verify with a private key", []string{"verify", "--pubkey", "admin.key", "requirements.json"}, exitcode.Usage, `admin.key is a private key; give the public key \(oceanadmin keygen wrote it to admin.pub\)`},
		{"verify with no key", []string{"verify", "--pubkey", "garbage", "requirements.json"}, exitcode.Usage, `parse public key "garbage"`},
		{"verify with a bad --at", []string{"verify", "--pubkey", "admin.pub", "--at", "later", "requirements.json"}, exitcode.Usage, `parse --at "later"`},
		{"verify a tampered envelope", []string{"verify", "--pubkey", "admin.pub", at, "tampered.json"}, exitcode.Refused, `REFUSED`},
		{"verify with another key", []string{"verify", "--pubkey", "other.pub", at, "requirements.json"}, exitcode.Refused, `unknown key`},
		{"verify an expired envelope", []string{"verify", "--pubkey", "admin.pub", "--at=2030-01-01T00:00:00Z", "requirements.json"}, exitcode.Refused, `expired`},
		{"verify an unsigned policy", []string{"verify", "--pubkey", "admin.pub", at, "policy.json"}, exitcode.Refused, `policy.json: .*not signed, and every oceancode refuses it: sign it with 'oceanadmin sign`},
		{"verify a config file", []string{"verify", "--pubkey", "admin.pub", at, "managed.json"}, exitcode.Refused, `the file is a config file, not a signed requirements envelope`},

		{"validate without files", []string{"validate"}, exitcode.Usage, `requires at least 1 arg`},
		{"validate with a bad --kind", []string{"validate", "--kind", "nope", "policy.json"}, exitcode.Usage, `--kind "nope": want config, managed or requirements`},
		{"validate a missing file", []string{"validate", "nope.json"}, exitcode.Usage, `read file nope.json: no such file`},
		{"validate a directory", []string{"validate", "."}, exitcode.Usage, `it is a directory`},
		{"validate an invalid managed file", []string{"validate", "bad-managed.json"}, exitcode.Invalid, `bad-managed.json:1:\d+: /sandbox/mode: `},
		{"validate an envelope without signatures", []string{"validate", "unsigned.json"}, exitcode.Invalid, `unsigned.json \(payload\):1:1: /serial: missing "serial"`},
		{"append to an envelope without signatures", []string{"sign", "--append", "-k", "admin.key", "unsigned.json"}, exitcode.Invalid, `missing "serial"`},
		{"validate a policy that is not JSON", []string{"validate", "broken-policy.json"}, exitcode.Invalid, `broken-policy.json: line 2, column 11: unexpected character ','`},
		{"validate an invalid policy", []string{"validate", "bad-policy.json"}, exitcode.Invalid, `requirements can only narrow`},
		{"validate a missing and an invalid file", []string{"validate", "bad-policy.json", "nope.json"}, exitcode.Usage, `no such file`},

		{"schema of an unknown kind", []string{"schema", "nope"}, exitcode.Usage, `unknown kind`},
		{"schema without a kind", []string{"schema"}, exitcode.Usage, `accepts 1 arg`},

		{"simulate requirements without a key", []string{"simulate", "--requirements", "requirements.json"}, exitcode.Usage, `--requirements needs --pubkey`},
		{"simulate with a bad --at", []string{"simulate", "--at", "x"}, exitcode.Usage, `parse --at "x"`},
		{"simulate a missing file", []string{"simulate", "--managed", "nope.json"}, exitcode.Usage, `read file nope.json: no such file`},
		{"simulate with a private key", []string{"simulate", "--requirements", "requirements.json", "--pubkey", "admin.key"}, exitcode.Usage, `admin.key is a private key`},
		{"simulate an envelope as managed", []string{"simulate", "--managed", "requirements.json"}, exitcode.Usage, `--managed requirements.json: the content is a signed requirements envelope, not a config file: pass it with --requirements`},
		{"simulate a policy as the user's", []string{"simulate", "--user", "policy.json"}, exitcode.Usage, `--user policy.json: the content is a requirements policy`},
		{"simulate a config as the requirements", []string{"simulate", "--requirements", "managed.json", "--pubkey", "admin.pub"}, exitcode.Usage, `--requirements managed.json: the content is a config file`},
		{"simulate an invalid managed file", []string{"simulate", "--managed", "bad-managed.json"}, exitcode.Invalid, `bad-managed.json`},
		{"simulate refused requirements", []string{"simulate", "--requirements", "tampered.json", "--pubkey", "admin.pub", at}, exitcode.Refused, `Sessions are refused`},

		{"package without --format", []string{"package", "--requirements", "current.json", "--trusted-keys", "admin.pub", "-o", "dist"}, exitcode.Usage, `required flag\(s\) "format"`},
		{"package in an unknown format", pkg("--format", "msi"), exitcode.Usage, `package --format "msi": unknown format: want one of mobileconfig, admx, reg, deb, rpm, dir`},
		{"package without -o", []string{"package", "--format", "deb", "--requirements", "current.json", "--trusted-keys", "admin.pub"}, exitcode.Usage, `required flag\(s\) "output"`},
		{"package with an argument", pkg("extra"), exitcode.Usage, `unknown command "extra"|accepts 0 arg`},
		{"package missing requirements", pkg("--requirements", "nope.json"), exitcode.Usage, `read requirements nope.json: no such file: check the path`},
		{"package missing trusted keys", pkg("--trusted-keys", "nope.pub"), exitcode.Usage, `read trusted keys nope.pub: no such file: check the path`},
		{"package with a private key as trusted keys", pkg("--trusted-keys", "admin.key"), exitcode.Usage, `admin.key is a private key; give the public key`},
		{"package with trusted keys that are no keys", pkg("--trusted-keys", "managed.json"), exitcode.Usage, `package --trusted-keys managed.json: read public keys managed.json: .*: give the public key list`},
		{"package requirements signed by another key", pkg("--trusted-keys", "other.pub"), exitcode.Refused, `package --requirements current.json: REFUSED: .*unknown key.*check it with 'oceanadmin verify --pubkey other.pub current.json'`},
		{"package tampered requirements", pkg("--requirements", "tampered.json"), exitcode.Refused, `package --requirements tampered.json: REFUSED`},
		{"package an unsigned policy", pkg("--requirements", "policy.json"), exitcode.Refused, `package --requirements policy.json: .*not signed.*sign it with 'oceanadmin sign`},
		{"package a config file as requirements", pkg("--requirements", "managed.json"), exitcode.Refused, `the file is a config file, not a signed requirements envelope`},
		{"package an invalid managed config", pkg("--managed", "bad-managed.json"), exitcode.Invalid, `package --managed bad-managed.json: invalid managed config: fix it.*\nbad-managed.json:1:\d+: /sandbox/mode: `},
		{"package a missing managed config", pkg("--managed", "nope.json"), exitcode.Usage, `package --managed nope.json: no such file`},
		{"package into a file", pkg("-o", "managed.json"), exitcode.Usage, `package -o managed.json: it is a file, not a directory: name a directory`},
		{"package below a file", pkg("-o", "not-a-dir/dist"), exitcode.Error, `package -o not-a-dir/dist: .*not a directory: choose a writable directory`},

		{"import without --from", []string{"import", "settings.json", "-o", "imported"}, exitcode.Usage, `required flag\(s\) "from"`},
		{"import without -o", []string{"import", "--from", "claude", "settings.json"}, exitcode.Usage, `required flag\(s\) "output"`},
		{"import from an unknown agent", []string{"import", "--from", "gemini", "settings.json", "-o", "x"}, exitcode.Usage, `import --from "gemini": want claude or codex`},
		{"import a missing file", []string{"import", "--from", "claude", "nope.json", "-o", "x"}, exitcode.Usage, `read file nope.json: no such file`},
		{"import a file that is not JSON", []string{"import", "--from", "claude", "pw", "-o", "x"}, exitcode.Invalid, `import pw: cannot import: not a JSON object: .*is it a managed-settings.json file\? \(--from\)`},
		{"import a file that is not TOML", []string{"import", "--from", "codex", "settings.json", "-o", "x"}, exitcode.Invalid, `import settings.json: cannot import: not TOML: .*is it a requirements.toml file`},
		{"import over existing outputs", []string{"import", "--from", "claude", "settings.json", "-o", "imported"}, exitcode.Usage, `imported/managed.json already exists: choose another -o or pass --force`},
		{"import into a file", []string{"import", "--from", "claude", "settings.json", "-o", "pw"}, exitcode.Usage, `import -o pw: it is a file, not a directory`},

		{"fingerprint without files", []string{"fingerprint"}, exitcode.Usage, `requires at least 1 arg`},
		{"fingerprint a missing file", []string{"fingerprint", "nope.pub"}, exitcode.Usage, `read key nope.pub: no such file`},
		{"fingerprint a file that is no key", []string{"fingerprint", "managed.json"}, exitcode.Invalid, `read key managed.json`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out := run(c.argv...)
			if code != c.code {
				t.Errorf("oceanadmin %s: exit %d, want %d\n%s", strings.Join(c.argv, " "), code, c.code, out)
			}
			if !regexp.MustCompile(c.msg).MatchString(out) {
				t.Errorf("oceanadmin %s: output does not match %q:\n%s", strings.Join(c.argv, " "), c.msg, out)
			}
		})
	}
	if _, err := os.Stat("x.json"); err == nil {
		t.Error("a refused sign wrote x.json")
	}
	if _, err := os.Stat("dist"); err == nil {
		t.Error("a refused package created its output directory")
	}
}
