package layers

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oceancode/oceancode/signing"
)

// benchProject writes a project whose config sets every class of loosening
// key and a .mcp.json, and returns its root and parsed documents.
func benchProject(b *testing.B) (string, []projectDoc) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, ".oceancode"), 0o755)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	cfg := `{
  "permission_mode": "bypassPermissions",
  "permission": {"bash": {"*": "allow", "rm:*": "deny", "git push:*": "ask"}, "edit": "allow"},
  "shell": {"allow": ["Bash(make:*)"], "deny": ["Bash(rm:*)"], "safe_list_extra": ["python3"]},
  "child_env": {"keep": ["X_TOKEN"], "set": {"A": "b"}},
  "sandbox": {"enabled": false, "mode": "danger-full-access", "deny": [".git"]},
  "refs": {"docs": "../docs"},
  "mcp": {"servers": {"gh": {"command": "gh-mcp", "args": ["--stdio"]}}},
  "provider": {"local": {"type": "openai", "base_url": "http://127.0.0.1:8000/v1"}},
  "model": "local/m",
  "agents": {"a": {"prompt": "p", "permission": {"bash": "allow"}}}
}`
	os.WriteFile(filepath.Join(root, ".oceancode", "oceancode.json"), []byte(cfg), 0o644)
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers": {"p": {"command": "srv"}}}`), 0o644)
	path := filepath.Join(root, ".oceancode", "oceancode.json")
	doc, _, err := parseFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return root, []projectDoc{{path: path, rel: filepath.Join(".oceancode", "oceancode.json"), root: doc.Value.(map[string]any), doc: doc}}
}

// BenchmarkTrustCheck is what workspace trust adds to a start: the split of
// the project's config, reading .mcp.json, the digest and the trust record
// lookup (docs/benchmarks.md; the target is ≤ 1 ms).
func BenchmarkTrustCheck(b *testing.B) {
	root, docs := benchProject(b)
	state := b.TempDir()
	keys, digest, err := ProjectLoosening(root)
	if err != nil || len(keys) == 0 {
		b.Fatal(err)
	}
	if err := NewTrustStore(state).Trust(CanonicalRoot(root), digest, time.Now()); err != nil {
		b.Fatal(err)
	}
	benchTrust(b, root, docs, ProjectConfigTrust, state, nil)
}

// BenchmarkTrustCheckSigned is the same under project_config "signed": the
// project's signature is read and verified (ed25519) in place of the record.
func BenchmarkTrustCheckSigned(b *testing.B) {
	root, docs := benchProject(b)
	_, digest, err := ProjectLoosening(root)
	if err != nil {
		b.Fatal(err)
	}
	k, err := signing.GenerateKey("repo")
	if err != nil {
		b.Fatal(err)
	}
	env, err := signing.Sign(ProjectPayloadType, []byte(`{"digest":"`+digest+`"}`), k)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := env.Marshal()
	os.WriteFile(filepath.Join(root, ProjectSignatureFile), data, 0o644)
	signers := []string{k.Public().String()}
	benchTrust(b, root, docs, ProjectConfigSigned, "", signers)
}

// benchTrust times the trust step of a start: split, .mcp.json, decide.
func benchTrust(b *testing.B, root string, docs []projectDoc, policy, state string, signers []string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &Resolved{ProjectRoot: root}
		var loose []ProjectKey
		for _, d := range docs {
			_, k := splitDoc(d.root, d.doc, d.path, d.rel)
			loose = append(loose, k...)
		}
		loose = append(loose, mcpFileKeys(root)...)
		r.decideTrust(Options{}, root, loose, policy, state, signers)
		if !r.Workspace.Trusted() {
			b.Fatal(r.Workspace.Reason)
		}
	}
}
