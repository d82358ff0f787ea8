package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDefsJSON is the cost of putting every tool definition into a
// request: the time to marshal them and their size (bytes/request).
func BenchmarkDefsJSON(b *testing.B) {
	defs := builtinDefs()
	var n int
	b.ReportAllocs()
	for b.Loop() {
		out, err := json.Marshal(defs)
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "bytes/request")
}

// BenchmarkReadSmallFile reads a 100-line file through the boundary, the
// secrets check and the tracker.
func BenchmarkReadSmallFile(b *testing.B) {
	env := testEnv(b)
	writeFile(b, filepath.Join(env.Cwd, "small.go"), strings.Repeat("func f() { return 42 } // some code here\n", 100))
	input := json.RawMessage(`{"path":"small.go"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := (ReadTool{}).Run(ctx, env, input); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkBashEcho is one unconfined bash call end to end.
func BenchmarkBashEcho(b *testing.B) {
	env := testEnv(b)
	input := json.RawMessage(`{"command":"echo hi"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := (BashTool{}).Run(ctx, env, input); r.Content != "hi\n" {
			b.Fatal(r.Content)
		}
	}
}
