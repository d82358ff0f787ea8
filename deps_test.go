// Package oceancode_test holds the repository-wide checks: the dependency
// rules of ARCHITECTURE.md, enforced with `go list -deps` so a wrong import
// fails CI.
package oceancode_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/oceancode/oceancode"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

// TestBinariesStayLean: neither binary links a package that is a test
// oracle only and whose package init every process would pay for.
func TestBinariesStayLean(t *testing.T) {
	forbidden := []struct{ prefix, why string }{
		// Its package init alone costs ~7 ms per process.
		{"github.com/santhosh-tekuri/jsonschema", "schema validation must stay on the package's own interpreter"},
		// Its package init costs ~0.2 ms per process; signing reads
		// ssh-ed25519 authorized_keys lines itself (signing/sshkey.go).
		{"golang.org/x/crypto/ssh", "OpenSSH public keys are parsed by package signing, not the ssh package"},
		// ~30 MB of binary and ~3.5 ms of init per process: the model SDKs
		// live in the oceancode-model companion (agent/provider/remote).
		{"github.com/anthropics/anthropic-sdk-go", "the model SDKs belong in cmd/oceancode-model"},
		{"github.com/openai/openai-go", "the model SDKs belong in cmd/oceancode-model"},
		{module + "/agent/provider/official", "the model SDKs belong in cmd/oceancode-model"},
		// The packagers (and their ~14 MB and ~3 ms of init) are oceanadmin's.
		{module + "/packaging", "packaging is admin side: only oceanadmin links it"},
		{"github.com/goreleaser/nfpm", "packaging is admin side: only oceanadmin links it"},
		// +6 MiB of resident memory, ~7 MB of binary and ~1 ms of init per
		// process, telemetry on or off: the OTLP/HTTP transport under the
		// SDK's exporter is internal/telemetry's own (otlphttp.go).
		{"google.golang.org/grpc", "the OTLP transport is internal/telemetry's own: otlptracehttp links gRPC"},
		{"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp", "the OTLP transport is internal/telemetry's own: it links gRPC"},
		// ~16 ms of package init (chroma's lexers and styles, bluemonday,
		// goldmark): the pager lives in the oceancode-pager companion.
		{module + "/agent/pager", "the pager belongs in cmd/oceancode-pager"},
		{"charm.land/glamour", "the pager belongs in cmd/oceancode-pager"},
		{"github.com/alecthomas/chroma", "the pager belongs in cmd/oceancode-pager"},
		{"charm.land/bubbletea", "the pager belongs in cmd/oceancode-pager"},
	}
	// oceanadmin links packaging and nfpm, and golang.org/x/crypto/ssh
	// through nfpm (its changelog support imports go-git); no package of the
	// module may import the ssh package (TestNoModuleImportsSSH), so keys
	// are still parsed by package signing alone.
	adminBinary := map[string]bool{"./cmd/oceanadmin": true}
	for _, bin := range []string{"./cmd/oceancode", "./cmd/oceanadmin"} {
		out, err := exec.Command("go", "list", "-deps", bin).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", bin, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if adminBinary[bin] && (f.prefix == "golang.org/x/crypto/ssh" || f.prefix == module+"/packaging" || f.prefix == "github.com/goreleaser/nfpm") {
					continue
				}
				if under(dep, f.prefix) {
					t.Errorf("%s links %s: %s", bin, dep, f.why)
				}
			}
		}
	}
}

// TestNoModuleImportsSSH: OpenSSH keys are parsed by package signing
// (signing/sshkey.go), never by golang.org/x/crypto/ssh.
func TestNoModuleImportsSSH(t *testing.T) {
	for name, p := range listPackages(t) {
		for _, imp := range p.Imports {
			if under(imp, "golang.org/x/crypto/ssh") {
				t.Errorf("%s imports %s: OpenSSH public keys are parsed by package signing", name, imp)
			}
		}
	}
}

// TestPrestartStaysEarly: internal/prestart starts the model client from
// its package init, which runs as soon as its imports are initialised; it
// may import only a few low-level standard packages, or it would start
// later and the first model request would wait for it.
func TestPrestartStaysEarly(t *testing.T) {
	allowed := map[string]bool{"fmt": true, "os": true, "path/filepath": true, "sync": true, "syscall": true,
		module + "/internal/sibling": true,
		// Hides the secrets before the client starts (pure, stdlib only).
		module + "/internal/secretenv": true}
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", "./internal/prestart").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if !allowed[imp] {
			t.Errorf("internal/prestart imports %s: keep it to %v", imp, allowed)
		}
	}
}

func under(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }

// internalDeps returns the module-internal packages p depends on (transitively).
func internalDeps(p pkg) []string {
	var out []string
	for _, d := range p.Deps {
		if strings.HasPrefix(d, module+"/") {
			out = append(out, strings.TrimPrefix(d, module+"/"))
		}
	}
	return out
}

func TestDependencyRules(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages of the module", len(pkgs))
	}
	adminOnly := []string{"layers", "requirements", "signing", "schema", "packaging"}
	for name, p := range pkgs {
		for _, d := range internalDeps(p) {
			// Nothing imports cmd/...
			if under(d, "cmd") && !under(name, "cmd") {
				t.Errorf("%s depends on %s: nothing outside cmd may import cmd/...", name, d)
			}
			if under(name, "cmd/oceancode") && under(d, "cmd/oceanadmin") || under(name, "cmd/oceanadmin") && under(d, "cmd/oceancode") {
				t.Errorf("%s depends on %s: the two binaries share code only through packages below cmd/", name, d)
			}
			// The runtime never imports the config and admin packages.
			if under(name, "agent") {
				for _, a := range adminOnly {
					if under(d, a) {
						t.Errorf("%s depends on %s: agent/... receives configuration as plain values (ARCHITECTURE.md)", name, d)
					}
				}
			}
			// The bridge from the layers to the engine's config serves the
			// oceancode front ends only: the runtime receives plain values
			// (agent/... cannot import it: it imports layers), and the admin
			// side never links the runtime it builds.
			if under(d, "sessionconfig") && !under(name, "sessionfactory") && !under(name, "policyproof") && !under(name, "cmd/oceancode") && !under(name, "cmd/oceancode-pager") {
				t.Errorf("%s depends on %s: only cmd/oceancode turns the layers into a session's config", name, d)
			}
			// The policy prover is doctor's: only the oceancode binaries link it.
			if under(d, "policyproof") && !under(name, "cmd/oceancode") && !under(name, "cmd/oceancode-pager") {
				t.Errorf("%s depends on %s: only oceancode doctor proves the policy", name, d)
			}
			// The session factory is the front ends' one way to a session:
			// only the oceancode binaries link it.
			if under(d, "sessionfactory") && !under(name, "cmd/oceancode") && !under(name, "cmd/oceancode-pager") {
				t.Errorf("%s depends on %s: only the oceancode front ends open sessions through the factory", name, d)
			}
			// The admin side never imports the runtime; oceanadmin builds without it.
			if under(name, "cmd/oceanadmin") || under(name, "packaging") || under(name, "layers") ||
				under(name, "requirements") || under(name, "signing") || under(name, "schema") || under(name, "policycheck") {
				if under(d, "agent") {
					t.Errorf("%s depends on %s: the admin packages never import agent/...", name, d)
				}
			}
		}
	}
	// Leaf packages with the narrowest allowances.
	allow := map[string][]string{
		// The admin side's packager: it may build on the trust chain, never
		// on the runtime or the config loader.
		"packaging":          {"requirements", "signing", "schema", "policycheck", "provenance", "internal/atomicfile", "internal/jsonpos", "internal/hostrule", "internal/mcplaunch", "internal/glob"},
		"provenance":         {},
		"signing":            {"internal/atomicfile"},
		"schema":             {"internal/jsonpos"},
		"policycheck":        {"schema", "provenance", "internal/jsonpos", "internal/hostrule", "internal/mcplaunch", "internal/glob"},
		"internal/mcplaunch": {},
		"internal/hostrule":  {},
		"internal/glob":      {},                                   // the one wildcard matcher, pure
		"agent/shellguard":   {"internal/secret", "internal/glob"}, // the one secrets-file matcher, pure
		"agent/permission":   {"provenance", "internal/glob"},
		"agent/childenv":     {"internal/secret", "internal/glob"}, // the one secret-name vocabulary
		"internal/secret":    {},
		"internal/jsonpos":   {},
		"internal/exitcode":  {},
	}
	for name, allowed := range allow {
		p, ok := pkgs[name]
		if !ok {
			continue // not built yet
		}
		for _, d := range internalDeps(p) {
			okDep := false
			for _, a := range allowed {
				if d == a {
					okDep = true
				}
			}
			if !okDep {
				t.Errorf("%s depends on %s; it may depend only on %v inside the module", name, d, allowed)
			}
		}
	}
	// External dependencies of the pure and security packages.
	external := map[string][]string{
		"provenance":       {},
		"schema":           {},
		"policycheck":      {},
		"signing":          {"golang.org/x/crypto/"},
		"agent/shellguard": {"mvdan.cc/sh/v3/"},
		"agent/permission": {},
		"internal/secret":  {},
		"internal/glob":    {},
		// The config tree is read through koanf, as the layers store it.
		"sessionconfig": {"github.com/knadh/koanf/"},
		// The HTTP API is the standard library's net/http: no web framework.
		"agent/server": {},
		// The session factory composes the module's packages, nothing else.
		"sessionfactory": {},
	}
	for name, prefixes := range external {
		p, ok := pkgs[name]
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) || !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // module-internal or standard library
			}
			okImp := false
			for _, pre := range prefixes {
				if strings.HasPrefix(imp, pre) {
					okImp = true
				}
			}
			if !okImp {
				t.Errorf("%s imports %s; allowed third-party prefixes: %v", name, imp, prefixes)
			}
		}
	}
}

// TestOneSessionFactory: the front ends (cmd/...) build a session only
// through package sessionfactory: no file of theirs starts a runner or
// builds a session's engine config itself. doctor's probes live in package
// policyproof (outside cmd/): they prove the policy on configs that never
// reach a model (a provider that is never called), and the live check runs
// a session without a model.
func TestOneSessionFactory(t *testing.T) {
	files, err := filepath.Glob("cmd/*/cli/*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("cmd/*/*.go")
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"runner.Start(", "sessionconfig.Build("} {
			if strings.Contains(string(b), call) {
				t.Errorf("%s calls %s: open sessions with sessionfactory.Factory.Open (ARCHITECTURE.md, one session factory)", f, call)
			}
		}
	}
}

// TestFrontEndsLinkNoEngine: the front ends that are clients of the
// session engine — the HTTP API's Go client, the pager and telemetry —
// speak its vocabulary (agent/engineapi), not the engine: none of them
// links the runner, the turn loop, the tools, the gate, the sandbox, the
// shell guard, the MCP client or the advisor. The in-process pager adapter
// (agent/pager/pagerlocal) is the one place that joins the pager to a
// runner session. And the vocabulary stays small: the standard library
// and a short allow-list inside the module, no third-party package.
func TestFrontEndsLinkNoEngine(t *testing.T) {
	pkgs := listPackages(t)
	engine := []struct{ pkg, why string }{
		{"agent/runner", "the session engine"},
		{"agent/tools", "the tools run commands and write files"},
		{"agent/sandbox", "the kernel sandbox"},
		{"agent/shellguard", "the shell guard"},
		{"agent/gate", "the permission gate"},
		{"agent/mcp", "the MCP client starts servers"},
		{"agent/jev", "the advisor"},
	}
	for _, fe := range []string{"agent/server/client", "agent/pager", "internal/telemetry"} {
		p, ok := pkgs[fe]
		if !ok {
			t.Errorf("go list did not list %s", fe)
			continue
		}
		for _, d := range internalDeps(p) {
			if d == "agent" {
				t.Errorf("%s links the turn loop (package agent): import agent/engineapi for its events", fe)
			}
			for _, e := range engine {
				if under(d, e.pkg) {
					t.Errorf("%s links %s (%s): a front end imports agent/engineapi, not the engine", fe, d, e.why)
				}
			}
		}
	}
	const vocab = "agent/engineapi"
	p, ok := pkgs[vocab]
	if !ok {
		t.Fatalf("go list did not list %s", vocab)
	}
	imports := map[string]bool{module + "/agent/message": true, module + "/agent/permission": true}
	for _, imp := range p.Imports {
		if strings.Contains(strings.Split(imp, "/")[0], ".") && !imports[imp] {
			t.Errorf("%s imports %s: it may import only the standard library and %v", vocab, imp, imports)
		}
	}
	// What those imports bring in (agent/permission's own leaves).
	deps := map[string]bool{"agent/message": true, "agent/permission": true, "provenance": true, "internal/glob": true}
	for _, d := range p.Deps {
		switch {
		case strings.HasPrefix(d, module+"/"):
			if !deps[strings.TrimPrefix(d, module+"/")] {
				t.Errorf("%s depends on %s; inside the module it may depend only on %v", vocab, d, deps)
			}
		case strings.Contains(strings.Split(d, "/")[0], "."):
			t.Errorf("%s depends on %s: the vocabulary links no third-party package", vocab, d)
		}
	}
}
