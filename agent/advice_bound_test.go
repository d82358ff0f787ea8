package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/jev/jevtest"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestActAlwaysSafeAdvisorBound: issue 21's attack. An act advisor whose
// model answers "safe" to everything (a wrong or prompt-injected model),
// over the real wire; the turn loop runs destructive and code-running
// commands with the real bash tool in a real git repository. None of them
// runs: each is asked (and denied), the files, branches, tags, commits and
// stashes are intact, nothing is written outside the project. A control
// command at the end shows the advisor was approving all along.
func TestActAlwaysSafeAdvisorBound(t *testing.T) {
	out := t.TempDir() // outside the project: markers must not appear here
	cmds := []string{
		"git reset --hard HEAD~1",
		"git clean -fdx",
		"git branch -D feature",
		"git checkout -- .",
		"truncate -s 0 data/users.csv",
		"dd if=/dev/zero of=data/orders.csv bs=1 count=4 conv=notrunc",
		"find data -name '*.csv' -delete",
		"rm -f data.db",
		`python3 -c 'open("` + out + `/python","w").write("x")'`,
		`perl -e 'open(F, ">", "` + out + `/perl")'`,
		`awk 'BEGIN{system("touch ` + out + `/awk")}'`,
		`ruby -e 'File.write("` + out + `/ruby", "x")'`,
		`node -e 'require("fs").writeFileSync("` + out + `/node", "x")'`,
		`sh -c 'touch ` + out + `/sh'`,
		`env python3 -c 'open("` + out + `/env","w")'`,
		`sed -n 's/content/x/w ` + out + `/sed' main.go`,
		`awk '{ print | "cat > ` + out + `/awkpipe" }' main.go`,
		"git restore .",
		"git restore --worktree internal/api.go",
		"git stash drop",
		"git stash clear",
		"git tag -d v1.0.0",
		"git -C . reset --hard",
		"git checkout -f main",
		"shred -u secrets.txt",
		": > data/orders.csv",
		"echo '' > README.md",
		"cp -f config.example.yaml config.prod.yaml",
		"find docs -name '*.md' -exec rm {} +",
		"ls | xargs rm -f",
		"rm internal/api.go",
		"rm server.log",
		"rm -- build/app",
		"unlink app.db",
		"git commit --amend -m rewritten",
		"git rebase --onto HEAD~1 HEAD",
	}
	session := make([]providertest.Turn, 0, len(cmds)+2)
	advisor := make([]providertest.Turn, 0, len(cmds)+1)
	for i, c := range cmds {
		session = append(session, bash(callID(i), c))
		advisor = append(advisor, providertest.Text(safeScores))
	}
	session = append(session, bash("control", "touch control.txt"), providertest.Text("ok"))
	advisor = append(advisor, providertest.Text(safeScores))
	c, _, adv, dir := jevSetup(t, jev.Act, 0, nil, session, advisor...)
	jevtest.Build(t, dir)
	// A second commit (for HEAD~1) and a stash.
	if err := os.WriteFile(filepath.Join(dir, "second.txt"), []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jevtest.Git(t, dir, "add", "second.txt")
	jevtest.Git(t, dir, "commit", "-q", "-m", "second")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("stashed change\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jevtest.Git(t, dir, "stash", "push", "-q", "--", "notes.txt")
	before := snapshot(t, dir)

	var mu sync.Mutex
	var evs []agent.Event
	c.OnEvent = func(e agent.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() }
	asked := map[string]bool{}
	c.Ask = func(_ context.Context, a agent.Ask) (agent.Reply, error) {
		asked[a.ToolCall.ID] = true
		return agent.Reply{Answer: agent.Deny}, nil
	}
	if _, err := agent.Run(context.Background(), c, nil, "clean up the repository"); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if !asked[callID(i)] {
			t.Errorf("%q ran without a prompt %+v", cmd, permOf(evs, callID(i)))
		}
	}
	for _, e := range evs {
		if e.Type == agent.EventAdvice && e.Advice.Acted && e.ToolCall.ID != "control" {
			t.Errorf("the advisor approved call %s", e.ToolCall.ID)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "control.txt")); err != nil || asked["control"] {
		t.Errorf("the control command did not run without a prompt (asked %v): %v", asked["control"], err)
	}
	after := snapshot(t, dir)
	if before != after {
		t.Errorf("the project changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("markers written outside the project: %v", ents)
	}
	if len(adv.Requests()) != 1 {
		t.Errorf("the advisor got %d requests, want 1 (the control command)", len(adv.Requests()))
	}
}

func callID(i int) string { return "call_" + string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// snapshot is the repository's state: commits, refs, stashes and every
// file's content (.git and the control file aside).
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(jevtest.Git(t, dir, "rev-list", "--all", "--reflog"))
	b.WriteString(jevtest.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"))
	b.WriteString(jevtest.Git(t, dir, "stash", "list"))
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || rel == "control.txt" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b.WriteString(rel + ": " + string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// permOf is the permission decision of call id, for the failure message.
func permOf(evs []agent.Event, id string) any {
	for _, e := range evs {
		if e.Type == agent.EventPermission && e.ToolCall != nil && e.ToolCall.ID == id {
			return e.Decision
		}
	}
	return nil
}
