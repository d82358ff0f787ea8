package permission

import (
	"testing"

	"github.com/oceancode/oceancode/provenance"
)

// benchConfig is a typical config: ~20 rules across two layers.
func benchConfig(b *testing.B) Config {
	proj := provenance.Origin{Layer: provenance.Project, Source: ".oceancode/oceancode.json", Line: 3}
	specs := []struct {
		s string
		a Action
	}{
		{"Bash(*)", Ask}, {"Bash(npm test)", Allow}, {"Bash(npm run:*)", Allow}, {"Bash(go test:*)", Allow},
		{"Bash(go build:*)", Allow}, {"Bash(make:*)", Allow}, {"Bash(git push:*)", Ask}, {"Bash(rm:*)", Ask},
		{"Bash(curl:*)", Deny}, {"Bash(docker:*)", Ask}, {"Bash(npm publish:*)", Deny},
		{"Edit(src/**)", Allow}, {"Edit(vendor/**)", Deny}, {"Edit(*.lock)", Ask}, {"Read(secrets/**)", Deny},
		{"Read(*.pem)", Deny}, {"mcp(github/*)", Allow}, {"mcp(github/delete_repo)", Deny},
		{"external_directory(/tmp/**)", Allow}, {"webfetch(https://pkg.go.dev/*)", Allow},
	}
	var rules []Rule
	for _, s := range specs {
		rule, err := ParseRule(s.s, s.a, proj)
		if err != nil {
			b.Fatal(err)
		}
		rules = append(rules, rule)
	}
	return Config{Rules: rules}
}

// benchBash is the bash call the evaluation benchmarks decide: one
// segment the rules allow, one the safe list does.
func benchBash() Call {
	return Call{Tool: "bash", Pattern: "go test ./... && git status", Approvals: &Approvals{},
		Shell: &ShellVerdict{Verdict: "ask", Segments: []string{"go test ./...", "git status"}, Verdicts: []string{"ask", "safe"}}}
}

// benchEvaluate measures Evaluate of c under cfg, which must decide want.
func benchEvaluate(b *testing.B, cfg Config, c Call, want Action) {
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := e.Evaluate(c); d.Action != want {
			b.Fatal(d.Explain())
		}
	}
}

func BenchmarkEvaluateBash(b *testing.B) { benchEvaluate(b, benchConfig(b), benchBash(), Allow) }

func BenchmarkEvaluateEdit(b *testing.B) {
	benchEvaluate(b, benchConfig(b), Call{Tool: "write", Pattern: "src/agent/permission/engine.go"}, Allow)
}

// BenchmarkEvaluateBashPosture is BenchmarkEvaluateBash under the
// default-deny shell posture (every segment reaches the requirements tier).
func BenchmarkEvaluateBashPosture(b *testing.B) {
	cfg := benchConfig(b)
	cfg.Locks.ShellPosture = PostureDefaultDeny
	benchEvaluate(b, cfg, benchBash(), Ask)
}
