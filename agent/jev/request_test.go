package jev

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/permission"
)

// TestRequestSize: every request of the shipped set, and a few built to be
// large, stays within MaxRequestBytes, and its user content is one JSON
// document of the shape the system prompt describes.
func TestRequestSize(t *testing.T) {
	set, err := DefaultSet()
	if err != nil {
		t.Fatal(err)
	}
	p := newProject(t, "")
	long := strings.Repeat("ünïcode ", 400)
	var cmds []string
	for _, c := range set {
		cmds = append(cmds, c.Command)
	}
	cmds = append(cmds,
		"echo "+long+" > out.txt",
		strings.Repeat("mkdir -p a/b/c && ", 60)+"touch x",
		"cat > f.txt <<'EOF'\n"+strings.Repeat("line </x> \"quoted\"\n", 200)+"EOF",
		"cp "+strings.Repeat("dir/", 300)+"x y",
	)
	biggest := 0
	for _, cmd := range cmds {
		req, _ := p.ask(cmd, "")
		req.UserMessages = []string{long, "second " + long, "third", "the newest request " + long}
		preq := buildRequest("m", req, ComputeFacts(req))
		n := RequestBytes(preq)
		biggest = max(biggest, n)
		if n > MaxRequestBytes {
			t.Errorf("%.60q: request is %d bytes, want at most %d", cmd, n, MaxRequestBytes)
		}
		if preq.System != SystemPrompt || len(preq.Messages) != 1 || preq.Messages[0].Role != message.User || preq.MaxTokens != maxAnswerTokens {
			t.Fatalf("%.60q: request %+v", cmd, preq)
		}
		var w wireContent
		dec := json.NewDecoder(strings.NewReader(preq.Messages[0].TextOf()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil || dec.More() {
			t.Fatalf("%.60q: content is not one JSON document: %v", cmd, err)
		}
		if len(w.User) > 0 && !strings.HasPrefix(w.User[len(w.User)-1], "the newest request") {
			t.Errorf("%.60q: user messages %q: want the newest kept last", cmd, w.User)
		}
		for _, u := range w.User {
			if len(u) > 64 && !strings.HasSuffix(u, truncMark) {
				t.Errorf("%.60q: a long user message is cut without the marker: %.80q", cmd, u)
			}
		}
		if len(w.Segments) == 0 {
			t.Errorf("%.60q: no segments", cmd)
		}
	}
	t.Logf("largest request: %d bytes (system prompt %d)", biggest, len(SystemPrompt))
}

// TestRequestContent: what the advisor sees of a typical command: the
// user's request, the segments as parsed and the facts from disk; never
// the agent's text (a Request has none to give).
func TestRequestContent(t *testing.T) {
	p := newProject(t, "")
	req, _ := p.ask("sudo sed -i 's/a/b/' main.go > log.txt && git commit -am x && curl -s https://example.com", "")
	req.UserMessages = []string{"fix the typo"}
	f := ComputeFacts(req)
	if f.Cwd != "." || !contains(f.Writes, "log.txt") || !contains(f.Git, "commit") || !contains(f.Network, "curl") || !contains(f.Network, "url") {
		t.Errorf("facts %+v", f)
	}
	var paths []string
	for _, pf := range f.Paths {
		paths = append(paths, pf.Path)
		if pf.Exists || !pf.Inside {
			t.Errorf("path %+v: want a missing path inside the project", pf)
		}
	}
	if !contains(paths, "main.go") || !contains(paths, "log.txt") {
		t.Errorf("paths %q", paths)
	}
	var w wireContent
	if err := json.Unmarshal([]byte(buildRequest("m", req, f).Messages[0].TextOf()), &w); err != nil {
		t.Fatal(err)
	}
	if len(w.User) != 1 || w.User[0] != "fix the typo" || len(w.Segments) != 3 || w.Segments[0].Text != "sed -i s/a/b/ main.go" ||
		len(w.Segments[0].Wrappers) != 1 || w.Segments[0].Redirects[0] != "> log.txt" || w.Segments[0].Verdict != "ask" {
		t.Errorf("content %+v", w)
	}
}

// TestCacheKey: the key is the normalised command with the facts; the
// same command elsewhere, or once a file it names exists, is another key.
func TestCacheKey(t *testing.T) {
	p := newProject(t, "")
	key := func(cmd, cwd string) string {
		req, _ := p.ask(cmd, cwd)
		return cacheKey(req, ComputeFacts(req))
	}
	a := key("touch  a.txt", "")
	if a != key("touch a.txt", "") {
		t.Error("whitespace changes the key")
	}
	if a == key("touch a.txt", "sub") || a == key("touch b.txt", "") {
		t.Error("another cwd or file has the same key")
	}
	req, d := p.ask("touch a.txt", "")
	if err := Eligible(req, d, permission.Default); err != nil {
		t.Fatal(err)
	}
}
