package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/layers/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", name, diff)
	}
}

func TestGoldenAllLayers(t *testing.T) {
	m := layerstest.Full(t)
	r := m.Resolve()
	for _, tc := range []struct {
		file   string
		opts   report.Options
		json   bool
		detail bool
	}{
		{file: "all.txt"},
		{file: "all.json", json: true},
		{file: "contested.txt", opts: report.Options{Prefixes: []string{"sandbox.mode", "permission_mode", "permission.bash", "shell.allow"}}, detail: true},
		{file: "contested.json", opts: report.Options{Prefixes: []string{"sandbox.mode", "permission_mode", "permission.bash", "shell.allow"}}, json: true},
		{file: "secrets-shown.json", opts: report.Options{Prefixes: []string{"provider"}, ShowSecrets: true}, json: true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			tc.opts.Abbrev = []report.Abbrev{{Dir: m.Root, Name: "$ROOT"}}
			rep := report.Build(r, tc.opts)
			var b bytes.Buffer
			if tc.json {
				out, err := rep.JSON()
				if err != nil {
					t.Fatal(err)
				}
				b.Write(out)
			} else if err := rep.Text(&b, tc.detail); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, b.Bytes())
		})
	}
}

func TestRedaction(t *testing.T) {
	r := layerstest.Full(t).Resolve()
	out, _ := report.Build(r, report.Options{}).JSON()
	if bytes.Contains(out, []byte("sk-secret")) {
		t.Fatal("a header value leaked into inspect --json")
	}
	shown, _ := report.Build(r, report.Options{ShowSecrets: true}).JSON()
	if !bytes.Contains(shown, []byte("sk-secret")) {
		t.Fatal("--show-secrets did not show the header")
	}
	for key, secret := range map[string]bool{
		`provider.local.headers.Authorization`: true,
		`mcp.servers.github.env.GITHUB_TOKEN`:  true,
		`mcp.servers.github.env.PLAIN`:         true,
		`child_env.set.AWS_SECRET_ACCESS_KEY`:  true,
		`child_env.set.EDITOR`:                 false,
		`provider.local.api_key_env`:           false,
		`provider.local.base_url`:              false,
		`sandbox.mode`:                         false,
		`permission.bash["echo $TOKEN"]`:       true,
	} {
		if got := report.IsSecretKey(key); got != secret {
			t.Errorf("IsSecretKey(%s) = %v, want %v", key, got, secret)
		}
	}
}

// TestJSONShapeStable pins the documented top-level fields of inspect --json.
func TestJSONShapeStable(t *testing.T) {
	out, _ := report.Build(layerstest.Full(t).Resolve(), report.Options{}).JSON()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"version", "requirements", "attestation", "layers", "keys"} {
		if _, ok := top[f]; !ok {
			t.Errorf("inspect --json lacks %q", f)
		}
	}
	var keys map[string]map[string]json.RawMessage
	json.Unmarshal(top["keys"], &keys)
	for _, f := range []string{"value", "layer", "source", "line"} {
		if _, ok := keys["sandbox.mode"][f]; !ok {
			t.Errorf("key entries lack %q", f)
		}
	}
	if !strings.Contains(string(top["requirements"]), `"payload_sha256"`) {
		t.Error("requirements block lacks payload_sha256")
	}
}

// TestRedactsSecretShapedValues: values whose key does not look secret are
// still redacted when they are credentials (made-up keys below).
func TestRedactsSecretShapedValues(t *testing.T) {
	m := layerstest.New(t)
	m.ProjectConfig(`{
  "provider": {
    "p": {"type": "openai", "base_url": "https://bob:hunter2@llm.example/v1", "api_key_env": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
  },
  "mcp": {"servers": {"gh": {"command": "srv", "args": ["--token", "plainsecretvalue", "--api-key=other-plain-value", "--port", "8080"]}}}
}`)
	m.TrustProject()
	// Not a variable name: the schema refuses the layer and quotes the value.
	m.UserConfig(`{"provider": {"q": {"type": "openai", "api_key_env": "sk-ant-api03-notavariablename"}}}`)
	r := m.Resolve()
	out, err := report.Build(r, report.Options{}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "ghp_abcdefghij", "plainsecretvalue", "other-plain-value", "sk-ant-api03"} {
		if bytes.Contains(out, []byte(leak)) {
			t.Errorf("inspect --json shows %q:\n%s", leak, out)
		}
	}
	for _, kept := range []string{`"--token"`, `"--port"`, `"8080"`, `https://bob:[REDACTED]@llm.example/v1`} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("inspect --json lost %s:\n%s", kept, out)
		}
	}
	var b bytes.Buffer
	if err := report.Build(r, report.Options{}).Text(&b, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sk-ant-api03") || strings.Contains(b.String(), "ghp_abcdefghij") {
		t.Errorf("inspect shows a pasted key:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "provider.p.api_key_env holds what looks like an API key") {
		t.Errorf("inspect does not say the pasted key is one:\n%s", b.String())
	}
	shown, _ := report.Build(r, report.Options{ShowSecrets: true}).JSON()
	if !bytes.Contains(shown, []byte("plainsecretvalue")) || !bytes.Contains(shown, []byte("hunter2")) {
		t.Errorf("--show-secrets hides values:\n%s", shown)
	}
}

// TestGoldenAttestation: the attestation object for a verified policy, for
// the last-known-good policy standing in for a refused file, and for a
// machine that enforces nothing: every field present in each.
func TestGoldenAttestation(t *testing.T) {
	m := layerstest.Full(t)
	abbrev := report.Options{Abbrev: []report.Abbrev{{Dir: m.Root, Name: "$ROOT"}}}
	got := map[string]report.Attestation{}
	got["verified"] = report.Build(m.Resolve(), abbrev).Attestation
	if err := os.WriteFile(filepath.Join(m.ManagedDir, "requirements.json"), []byte(`{"payload":"tampered"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got["last_known_good"] = report.Build(m.Resolve(), abbrev).Attestation
	bare := layerstest.New(t)
	got["not_enforced"] = report.Build(bare.Resolve(), report.Options{Abbrev: []report.Abbrev{{Dir: bare.Root, Name: "$ROOT"}}}).Attestation
	if !got["last_known_good"].LastKnownGood.InUse || got["verified"].LastKnownGood.InUse {
		t.Errorf("in_use: verified %+v, last known good %+v", got["verified"].LastKnownGood, got["last_known_good"].LastKnownGood)
	}
	out, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "attestation.json", append(out, '\n'))
	// The report's own writer writes the same object.
	rep := report.Build(m.Resolve(), abbrev)
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		t.Fatal(err)
	}
	var a report.Attestation
	if err := json.Unmarshal(top["attestation"], &a); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got["last_known_good"], a); diff != "" {
		t.Errorf("inspect --json attestation (-want +got):\n%s", diff)
	}
}
