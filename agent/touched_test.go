package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oceancode/oceancode/agent/tools"
)

// TestTouched: a path tool's path and a bash call's own working directory
// reach Config.Touched with the call's working directory; other tools and
// a bash call in the session's directory do not; what it returns is added.
func TestTouched(t *testing.T) {
	t.Parallel()
	var got []string
	var events []Event
	r := &run{c: Config{Env: &tools.Env{Cwd: "/p"}, OnEvent: func(e Event) { events = append(events, e) }, Touched: func(path, cwd string) (string, string) {
		got = append(got, path+"|"+cwd)
		if path == "sub/x.go" {
			return "SUB", "sub/AGENTS.md (subdir, 3 bytes)"
		}
		return "", ""
	}}}
	out := r.touched([]tools.Target{
		{Tool: "read", Input: "sub/x.go"},
		{Tool: "grep", Input: ""},
		{Tool: "bash", Input: "make"},
		{Tool: "bash", Input: "make", Cwd: "/p/q"},
		{Tool: "webfetch", Input: "https://example.com"},
		{Tool: "apply_patch", Input: "a/b.go", Cwd: "/p/r"},
	})
	want := []string{"sub/x.go|/p", "|/p", "|/p/q", "a/b.go|/p/r"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Touched calls (-want +got):\n%s", diff)
	}
	if out != "\n\nSUB" || strings.Count(out, "SUB") != 1 {
		t.Errorf("added %q", out)
	}
	if len(events) != 1 || events[0].Type != EventInstructions || events[0].Key != "sub/x.go" || events[0].Text != "sub/AGENTS.md (subdir, 3 bytes)" {
		t.Errorf("events %+v", events)
	}
	if (&run{}).touched([]tools.Target{{Tool: "read", Input: "x"}}) != "" {
		t.Error("no hook, yet something was added")
	}
}
