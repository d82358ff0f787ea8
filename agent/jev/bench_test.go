package jev

import (
	"context"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/jev/jevtest"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkRequestSize builds the request of every case of the shipped set
// and reports the largest and the mean size (the bound is MaxRequestBytes).
func BenchmarkRequestSize(b *testing.B) {
	set, err := DefaultSet()
	if err != nil {
		b.Fatal(err)
	}
	p := newProject(b, "")
	reqs := make([]Request, len(set))
	for i, c := range set {
		reqs[i], _ = p.ask(c.Command, c.Cwd)
		reqs[i].UserMessages = []string{c.User}
	}
	largest, total, n := 0, 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := reqs[i%len(reqs)]
		size := RequestBytes(buildRequest("m", req, ComputeFacts(req)))
		largest = max(largest, size)
		total += size
		n++
	}
	b.ReportMetric(float64(largest), "max-bytes")
	b.ReportMetric(float64(total)/float64(n), "mean-bytes")
}

// BenchmarkAdviseOverhead: Advise against the scripted model, and the bare
// provider call with the same request, in the same run; the difference is
// what the advisor adds to the model's own latency (the bound is 1 ms).
func BenchmarkAdviseOverhead(b *testing.B) {
	srv := providertest.NewScript(b, providertest.Script{Turns: []providertest.Turn{answer(safeScores)}, Loop: true})
	prov := model(b, srv)
	p := newProject(b, "")
	req, _ := p.ask("sed -i 's/oldName/newName/g' internal/api/server.go && go test ./internal/api/", "")
	req.UserMessages = []string{"rename oldName to newName and run the tests"}
	preq := buildRequest("claude-test", req, ComputeFacts(req))
	ctx := context.Background()
	// Warm the connection.
	if _, err := prov.Stream(ctx, preq, nil); err != nil {
		b.Fatal(err)
	}
	var bare, advise time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := prov.Stream(ctx, preq, nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		a, _ := New(Config{Mode: Act, Provider: prov, Model: "claude-test"}) // a new session: no cached verdict
		if adv := a.Advise(ctx, req); !adv.Safe() {
			b.Fatalf("advice %+v", adv)
		}
		advise += time.Since(t1)
		bare += t1.Sub(t0)
	}
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "provider-ns/op")
	b.ReportMetric(float64(advise.Nanoseconds())/float64(b.N), "advise-ns/op")
	b.ReportMetric(float64((advise-bare).Nanoseconds())/float64(b.N), "overhead-ns/op")
}

// BenchmarkAdviseCached: an identical command later in the session.
func BenchmarkAdviseCached(b *testing.B) {
	srv := providertest.New(b, answer(safeScores))
	p := newProject(b, "")
	req, _ := p.ask("sed -i 's/oldName/newName/g' internal/api/server.go && go test ./internal/api/", "")
	a := newAdvisor(b, Act, model(b, srv))
	ctx := context.Background()
	if adv := a.Advise(ctx, req); !adv.Safe() {
		b.Fatalf("advice %+v", adv)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if adv := a.Advise(ctx, req); !adv.Cached {
			b.Fatalf("advice %+v", adv)
		}
	}
}

// BenchmarkEligibleRemoval: Eligible's cost in a real git project, with
// the code-side bound: a command with no removal or overwrite target (no
// git query, the same-run baseline), an overwrite of a new file (a stat),
// and a removal of a committed file (two read-only git queries and a
// hash of the file).
func BenchmarkEligibleRemoval(b *testing.B) {
	root := jevtest.Project(b)
	p := newProject(b, root)
	for _, c := range []struct{ name, cmd string }{
		{"no-target", "mkdir -p build/out"},
		{"overwrite-new-file", "go version > build/version.txt"},
		{"awk-sed-program", "sed -i 's/oldName/newName/g' main.go && awk '{print $1}' main.go"},
		{"removal", "rm notes.txt"},
		{"removal-two-files", "rm notes.txt old.go"},
	} {
		req, d := p.ask(c.cmd, "")
		if err := Eligible(req, d, permission.Default); err != nil {
			b.Fatalf("%q: %v", c.cmd, err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Eligible(req, d, permission.Default); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
