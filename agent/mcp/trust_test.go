package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/mcp"
	"github.com/oceancode/oceancode/agent/permission"
)

// TestFingerprint: what changes the definition digest and what does not,
// and Changes words the difference.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := mcp.Server{Name: "s", URL: "https://a.example/mcp", Headers: map[string]string{"Authorization": "Bearer 1"}}
	fp := func(s mcp.Server) mcp.Fingerprint {
		t.Helper()
		f, err := mcp.Identify(s, "", "")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	b := fp(base)
	for _, tt := range []struct {
		name   string
		edit   func(*mcp.Server)
		same   bool
		change string
	}{
		{"header value rotates", func(s *mcp.Server) { s.Headers = map[string]string{"Authorization": "Bearer 2"} }, true, ""},
		{"empty args", func(s *mcp.Server) { s.Args = []string{} }, true, ""},
		{"origin", func(s *mcp.Server) { s.Origin = permission.MCPProjectFile }, true, ""},
		{"url", func(s *mcp.Server) { s.URL = "https://b.example/mcp" }, false, `url "https://a.example/mcp" → "https://b.example/mcp"`},
		{"header added", func(s *mcp.Server) { s.Headers = map[string]string{"Authorization": "x", "X-Extra": "y"} }, false, `headers "Authorization" → "Authorization,X-Extra"`},
		{"env value", func(s *mcp.Server) { s.Env = map[string]string{"A": "1"} }, false, `env "" → "A"`},
		{"name", func(s *mcp.Server) { s.Name = "t" }, false, "an environment variable's value"},
	} {
		s := base
		tt.edit(&s)
		got := fp(s)
		if got.Same(b) != tt.same {
			t.Errorf("%s: Same = %v, want %v", tt.name, got.Same(b), tt.same)
		}
		if !tt.same && got.Changes(b) != tt.change {
			t.Errorf("%s: Changes = %q, want %q", tt.name, got.Changes(b), tt.change)
		}
	}
	if _, err := mcp.Identify(mcp.Server{Name: "x", Command: "no-such-mcp-server"}, "", "/usr/bin:/bin"); err == nil {
		t.Error("an unresolvable command has a fingerprint")
	}
}

// TestTrustStore: decisions persist per project; a corrupt store trusts
// nothing (and is reported), never silently.
func TestTrustStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ts := &mcp.TrustStore{Path: filepath.Join(dir, "state", mcp.TrustFile)}
	fp := mcp.Fingerprint{Definition: "d", SHA256: "s"}
	if err := ts.Trust("/p", "srv", fp); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(ts.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store file: %v %v", fi, err)
	}
	again := &mcp.TrustStore{Path: ts.Path}
	if r, ok, err := again.Lookup("/p", "srv"); err != nil || !ok || !r.Same(fp) {
		t.Fatalf("Lookup = %+v %v %v", r, ok, err)
	}
	if _, ok, _ := again.Lookup("/q", "srv"); ok {
		t.Error("trust crossed projects")
	}
	if err := again.Forget("/p", "srv"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := again.Lookup("/p", "srv"); ok {
		t.Error("Forget kept the decision")
	}
	if err := os.WriteFile(ts.Path, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := again.Lookup("/p", "srv"); err == nil {
		t.Error("a corrupt store was read without an error")
	}
	srv := mcp.Server{Name: "srv", URL: "https://a.example/mcp", Origin: permission.MCPProjectFile}
	if _, err := (mcp.Policy{Trust: again, Project: "/p"}).Admit(srv, "", ""); err == nil || !strings.Contains(err.Error(), "read mcp trust store") {
		t.Errorf("Admit with a corrupt store: %v", err)
	}
	if _, err := (mcp.Policy{}).Admit(srv, "", ""); err == nil {
		t.Error("a project server was admitted without a trust store")
	}
}
