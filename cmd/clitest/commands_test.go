//go:build unix

package clitest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// writeFile writes a file of the test machine, making its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// customMachine is a machine with a project command (/review, narrowed to
// Read and Skill), a namespaced user command and a project skill (tidy)
// with a second file.
func customMachine(t *testing.T, model *providertest.Server) *layerstest.Machine {
	m := serveMachine(t, model, "")
	writeFile(t, filepath.Join(m.Project, ".oceancode", "commands", "review.md"), `---
description: Review one file
argument-hint: FILE [FOCUS]
allowed-tools: Read, Skill
---
Review $1 with care. Focus: $ARGUMENTS.
`)
	writeFile(t, filepath.Join(m.Home, ".config", "oceancode", "commands", "git", "note.md"), "Write a note about $ARGUMENTS\n")
	writeFile(t, filepath.Join(m.Project, ".claude", "commands", "legacy.md"), "A Claude Code command\n")
	writeFile(t, filepath.Join(m.Project, ".oceancode", "skills", "tidy", "SKILL.md"), `---
name: tidy
description: Tidy Go files the team's way
---
Run gofmt, then sort the imports.
`)
	writeFile(t, filepath.Join(m.Project, ".oceancode", "skills", "tidy", "rules.txt"), "rule one\n")
	return m
}

// userText is the text of a request's first message.
func userText(t *testing.T, r providertest.Request) string {
	t.Helper()
	if len(r.Messages) == 0 || r.Messages[0].Role != message.User {
		t.Fatalf("the request has no user message: %v", r.Messages)
	}
	return r.Messages[0].TextOf()
}

// TestCustomCommandAndSkillInRun: `run "/review main.go style"` sends the
// command's expansion with the tools narrowed to its allowed-tools, the
// skill tool lists the skill by name and description only, and a load of
// it returns its instructions and names its other files.
func TestCustomCommandAndSkillInRun(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Call("skill", map[string]string{"name": "tidy"}),
		providertest.Text("reviewed"),
	)
	m := customMachine(t, model)
	cmd := exec.Command("oceancode", "run", "--format", "stream-json", "/review main.go style")
	cmd.Dir, cmd.Env = m.Project, serveEnv(m)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 model requests, got %d", len(reqs))
	}
	if got, want := userText(t, reqs[0]), "Review main.go with care. Focus: main.go style."; got != want {
		t.Errorf("the request carried %q, want the expansion %q", got, want)
	}
	if got := reqs[0].Tools; !slices.Equal(got, []string{"read", "skill"}) {
		t.Errorf("allowed-tools Read, Skill: the request offered %v, want [read skill]", got)
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "- tidy: Tidy Go files the team's way") || strings.Contains(body, "sort the imports") {
		t.Errorf("the skill tool must list the skill by name and description only: %s", body)
	}
	last, _ := json.Marshal(reqs[1].Messages)
	for _, want := range []string{"Run gofmt, then sort the imports.", "rules.txt"} {
		if !strings.Contains(string(last), want) {
			t.Errorf("the skill's load does not carry %q: %s", want, last)
		}
	}
	if !strings.Contains(stdout.String(), `"type":"command"`) || !strings.Contains(stdout.String(), `"name":"review"`) {
		t.Errorf("stream-json has no command event:\n%s", stdout.String())
	}
}

// TestManagedOnlyDropsCommands: allow_managed_commands_only and
// allow_managed_skills_only drop the user's and the project's commands
// and skills; inspect commands names each with why, the run says so once
// on stderr, and the prompt goes to the model as typed.
func TestManagedOnlyDropsCommands(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("ok"))
	m := customMachine(t, model)
	writeFile(t, filepath.Join(m.ManagedDir, "commands", "ship.md"), "---\ndescription: Ship it\n---\nShip $ARGUMENTS\n")
	m.Anchor()
	m.Requirements(1, map[string]any{"allow_managed_commands_only": true, "allow_managed_skills_only": true})

	insp := exec.Command("oceancode", "inspect", "commands")
	insp.Dir, insp.Env = m.Project, serveEnv(m)
	out, err := insp.CombinedOutput()
	if err != nil {
		t.Fatalf("inspect commands: %v\n%s", err, out)
	}
	for _, want := range []string{"/ship", "command /review (project", "command /git:note (user", "skill tidy (project", "allow_managed_commands_only", "allow_managed_skills_only"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect commands does not name %q:\n%s", want, out)
		}
	}

	full := exec.Command("oceancode", "inspect")
	full.Dir, full.Env = m.Project, serveEnv(m)
	if out, err = full.CombinedOutput(); err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	for _, want := range []string{"commands: only the managed layer's", "skills: only the managed layer's", "command /review (project", "skill tidy (project"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect's locks do not name %q:\n%s", want, out)
		}
	}

	run := exec.Command("oceancode", "run", "/review main.go")
	run.Dir, run.Env = m.Project, serveEnv(m)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "command /review (project"); n != 1 {
		t.Errorf("the dropped command is named %d times on stderr, want once:\n%s", n, stderr.String())
	}
	reqs := model.Requests()
	if got := userText(t, reqs[0]); got != "/review main.go" {
		t.Errorf("a dropped command expanded: the request carried %q", got)
	}
	if slices.Contains(reqs[0].Tools, "skill") {
		t.Error("a dropped skill was offered")
	}
}

// TestCustomCommandAndSkillInPager: in a real terminal, Tab completes a
// custom command from the / menu, Enter runs it (the engine expands it),
// the scrollback says where it came from, and the model loads the skill.
func TestCustomCommandAndSkillInPager(t *testing.T) {
	t.Parallel()
	model := providertest.New(t,
		providertest.Call("skill", map[string]string{"name": "tidy", "file": "rules.txt"}),
		providertest.Text("reviewed in the pager"),
	)
	m := customMachine(t, model)
	tm := startPager(t, m, 120, 40)
	tm.waitFor("ask anything")
	tm.typeText("/rev")
	tm.keys("Tab")
	tm.waitFor("/review ")
	tm.typeText("main.go style")
	tm.keys("Enter")
	s := tm.waitFor("reviewed in the pager")
	if !strings.Contains(s, "/review (project") {
		t.Errorf("the scrollback does not say which command ran:\n%s", s)
	}
	reqs := model.Requests()
	if got, want := userText(t, reqs[0]), "Review main.go with care. Focus: main.go style."; got != want {
		t.Errorf("the request carried %q, want the expansion %q", got, want)
	}
	if last := lastRequest(t, model); !strings.Contains(last, "rule one") {
		t.Errorf("the skill's file did not reach the model: %s", last)
	}
	tm.typeText("/help")
	tm.keys("Enter")
	s = tm.waitFor("custom commands")
	if !strings.Contains(s, "/review FILE [FOCUS]") || !strings.Contains(s, "Review one file") {
		t.Errorf("/help does not list the custom command:\n%s", s)
	}
	tm.typeText("/exit")
	tm.keys("Enter")
	tm.waitExit()
}

// TestCustomCommandOverServe: a session's state lists its custom commands
// (checked against the OpenAPI document), and a message "/review …" runs
// the expansion with a command event first.
func TestCustomCommandOverServe(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("reviewed over http"))
	m := customMachine(t, model)
	srv := startServe(t, m)
	id := srv.create(nil)
	st := srv.call("GET", "/api/session/"+id, nil, 200, "State")
	cmds, _ := json.Marshal(st["commands"])
	if !strings.Contains(string(cmds), `"name":"review"`) || !strings.Contains(string(cmds), `"argument_hint":"FILE [FOCUS]"`) ||
		!strings.Contains(string(cmds), `"name":"git:note"`) || !strings.Contains(string(cmds), `"name":"legacy"`) {
		t.Errorf("the state's commands: %s", cmds)
	}
	ch, _ := srv.events(id, 0)
	srv.send(id, "/review main.go style")
	evs := srv.until(ch, "done", 1)
	found := false
	for _, e := range evs {
		found = found || e.Type() == "command" && strings.Contains(e.Data, `"path":"`+filepath.Join(m.Project, ".oceancode", "commands", "review.md"))
	}
	if !found {
		t.Errorf("no command event naming the file among %d events", len(evs))
	}
	if got := userText(t, model.Requests()[0]); got != "Review main.go with care. Focus: main.go style." {
		t.Errorf("the request carried %q", got)
	}
}

// TestCommandModelNeedsTrust: a user command's model switches the turn's
// model; a project command's model is ignored in an untrusted workspace,
// with a notice on stderr.
func TestCommandModelNeedsTrust(t *testing.T) {
	t.Parallel()
	model := providertest.New(t, providertest.Text("one"), providertest.Text("two"))
	m := layerstest.New(t)
	m.UserConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + model.OpenAIURL() + `"}}, "model": "mock/m"}`)
	writeFile(t, filepath.Join(m.Home, ".config", "oceancode", "commands", "fast.md"), "---\nmodel: mock/m-fast\n---\nQuick: $ARGUMENTS\n")
	writeFile(t, filepath.Join(m.Project, ".oceancode", "commands", "big.md"), "---\nmodel: m-big\n---\nBig: $ARGUMENTS\n")
	for _, tc := range []struct{ prompt, model, notice string }{
		{"/fast x", "m-fast", ""},
		{"/big y", "m", `model "m-big" ignored: a project command switches the model only in a trusted workspace`},
	} {
		run := exec.Command("oceancode", "run", tc.prompt)
		run.Dir, run.Env = m.Project, serveEnv(m)
		var stderr bytes.Buffer
		run.Stderr = &stderr
		if err := run.Run(); err != nil {
			t.Fatalf("run %s: %v\n%s", tc.prompt, err, stderr.String())
		}
		reqs := model.Requests()
		if got := reqs[len(reqs)-1].Model; got != tc.model {
			t.Errorf("%s ran on model %q, want %q", tc.prompt, got, tc.model)
		}
		if tc.notice != "" && !strings.Contains(stderr.String(), tc.notice) {
			t.Errorf("%s: stderr does not say %q:\n%s", tc.prompt, tc.notice, stderr.String())
		}
	}
}
