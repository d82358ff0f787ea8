package hooks

import (
	"context"
	"testing"
)

// BenchmarkFire: one PreToolUse hook (`true`) per call, through the
// supervisor, as a session with one hook pays it on every tool call.
func BenchmarkFire(b *testing.B) {
	r := runnerB(b, `true`)
	in := Input{Event: PreToolUse, ToolName: "bash", ToolInput: []byte(`{"command":"ls"}`)}
	for b.Loop() {
		if res := r.Fire(context.Background(), in); len(res.Runs) != 1 || res.Runs[0].Exit != 0 {
			b.Fatalf("%+v", res)
		}
	}
}

// BenchmarkNoMatch: a call no hook matches costs no process.
func BenchmarkNoMatch(b *testing.B) {
	r := runnerB(b, `true`)
	r.Hooks[0].match = func(string) bool { return false }
	in := Input{Event: PreToolUse, ToolName: "bash"}
	for b.Loop() {
		r.Fire(context.Background(), in)
	}
}

func runnerB(b *testing.B, cmd string) *Runner {
	hs, err := Parse("PreToolUse", 0, Group{Hooks: []Command{{Type: "command", Command: cmd}}}, userOrigin)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	return &Runner{Hooks: hs, Dir: dir, ProjectRoot: dir}
}
