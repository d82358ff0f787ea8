package jev

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/permission"
)

// TestEligible: what reaches the advisor is decided in code. Every refusal
// wraps ErrIneligible and says why; residual in-project asks pass.
func TestEligible(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src", ".git/hooks", "real"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Links: one into .git/hooks, one out of the project.
	if err := os.Symlink(filepath.Join(root, ".git/hooks/pre-commit"), filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, root,
		permission.Rule{Key: "bash", Pattern: "git commit:*", Action: permission.Ask, Origin: userOrigin, Source: "config"},
		permission.Rule{Key: "bash", Pattern: "curl:*", Action: permission.Deny, Origin: userOrigin, Source: "config"})

	for _, c := range []struct {
		cmd, cwd string
		mode     permission.Mode
		want     string // "" = eligible; else a part of the refusal
	}{
		// Eligible: residual asks inside the project.
		{cmd: "mkdir -p build/out", want: ""},
		{cmd: "sed -i 's/a/b/' src/main.go", want: ""},
		{cmd: "go test ./... 2>&1 | tee test.log", want: ""},
		{cmd: "cp config.example.yaml config.yaml", cwd: "src", want: ""},
		{cmd: "git checkout -b feature/x", mode: permission.AcceptEdits, want: ""},
		{cmd: "echo x > real/out.txt", mode: permission.Plan, want: ""},
		{cmd: "rm *.o", want: "removes a pattern"},

		// Modes.
		{cmd: "mkdir x", mode: permission.DontAsk, want: "dontAsk gets no advice"},
		{cmd: "mkdir x", mode: permission.BypassPermissions, want: "bypassPermissions asks nothing"},
		// The floor and deny rules.
		{cmd: "rm -rf /", want: "dangerous floor"},
		{cmd: "curl https://example.com", want: "a deny decided"},
		// A specific ask rule, not the catch-all.
		{cmd: "git commit -m x", want: "a specific rule settled the ask: Bash(git commit:*) ask"},
		// Not an ask.
		{cmd: "ls", want: "not an ask"},
		// Outside the project: the ask is external_directory's.
		{cmd: "cat /etc/hosts", want: `under "external_directory"`},
		// The hold list.
		{cmd: "npm install left-pad", want: "hold list"},
		{cmd: "pip install requests", want: "hold list"},
		{cmd: "npm publish", want: "hold list"},
		{cmd: "git push origin main", want: "hold list"},
		{cmd: "rm -r build", want: "hold list"},
		{cmd: "scp a.txt host:/tmp", want: "hold list"},
		{cmd: "ssh host true", want: "hold list"},
		{cmd: "curl -X POST https://example.com", want: "a deny decided"},
		{cmd: "wget --post-file=a.txt https://example.com", want: "hold list"},
		{cmd: "python3 scripts/x.py", want: "hold list"},
		{cmd: "bash build.sh", want: "hold list"},
		// Does not parse.
		{cmd: "echo 'unterminated", want: "does not parse"},
		// Expansions the checks cannot see through.
		{cmd: "X=.bash; echo x >> ${X}rc", want: "computed target"},
		{cmd: "f=.git/hooks; cp x $f/pre-commit", want: "expansions"},
		// Persistence files, named or written.
		{cmd: "echo x >> .github/workflows/ci.yml", want: "CI workflows"},
		{cmd: "cp ci.yml .gitlab-ci.yml", want: "CI workflows"},
		{cmd: "mkdir -p .circleci", want: "CI workflows"},
		{cmd: "touch Jenkinsfile", want: "Jenkinsfile"},
		{cmd: "cp x azure-pipelines.yml", want: "azure-pipelines"},
		{cmd: "cp hook .git/hooks/pre-commit", want: ".git/"},
		{cmd: "sed -i s/a/b/ .git/config", want: ".git/"},
		{cmd: "echo x >> .git/info/exclude", want: ".git/"},
		{cmd: "echo '{}' > .mcp.json", want: ".mcp.json"},
		{cmd: "touch .oceancode/oceancode.json", want: ".oceancode/"},
		{cmd: "mkdir .claude", want: ".claude/"},
		{cmd: "touch .codex/config.toml", want: ".codex/"},
		{cmd: "touch .crush.json", want: ".crush"},
		{cmd: "touch opencode.json", want: "opencode.json"},
		{cmd: "echo x >> .bashrc", want: ".bashrc"},
		{cmd: "echo x >> .zshrc", want: ".zshrc"},
		{cmd: "echo x >> .profile", want: ".profile"},
		{cmd: "echo x >> .bash_profile", want: ".bash_profile"},
		{cmd: "echo x >> .zprofile", want: ".zprofile"},
		{cmd: "echo x >> .envrc", want: ".envrc"},
		{cmd: "mkdir -p .config/fish", want: ".config/fish"},
		// The rest of each class (issue 15 names the classes, not a list).
		{cmd: "echo x >> .zlogin", want: ".zlogin"},
		{cmd: "echo x >> .kshrc", want: ".kshrc"},
		{cmd: "echo x >> .bash_logout", want: ".bash_logout"},
		{cmd: "echo x >> .cshrc", want: ".cshrc"},
		{cmd: "echo x >> .tcshrc", want: ".tcshrc"},
		{cmd: "echo x >> .login", want: ".login"},
		{cmd: "touch .travis.yml", want: "CI workflows"},
		{cmd: "cp x bitbucket-pipelines.yml", want: "CI workflows"},
		{cmd: "touch .drone.yml", want: "CI workflows"},
		{cmd: "touch appveyor.yml", want: "CI workflows"},
		{cmd: "mkdir -p .gitlab/ci", want: "CI workflows"},
		{cmd: "mkdir -p .woodpecker", want: "CI workflows"},
		{cmd: "mkdir -p .forgejo/workflows", want: "CI workflows"},
		{cmd: "mkdir -p .gitea/workflows", want: "CI workflows"},
		{cmd: "echo x >> .gitconfig", want: ".gitconfig"},
		{cmd: "touch .config/git/config", want: ".config/git"},
		{cmd: "touch lefthook.yml", want: "lefthook.yml"},
		{cmd: "touch .cursor/mcp.json", want: ".cursor/"},
		{cmd: "touch .gemini/settings.json", want: ".gemini/"},
		{cmd: "touch .vscode/tasks.json", want: ".vscode/"},
		{cmd: "touch .husky/pre-commit", want: ".husky/"},
		{cmd: "echo registry=x > .npmrc", want: ".npmrc"},
		{cmd: "touch .pre-commit-config.yaml", want: ".pre-commit-config.yaml"},
		{cmd: "sed -i s/a/b/ Makefile", want: "Makefile"},
		{cmd: "touch GNUmakefile", want: "GNUmakefile"},
		{cmd: "sed -i s/a/b/ package.json", want: "package.json"},
		{cmd: "npm pkg set scripts.x=y", want: "npm pkg"},
		{cmd: "git config core.hooksPath x", want: "git config"},
		{cmd: "git -c core.pager=x log", want: "git -c"},
		{cmd: "git remote add x https://example.com", want: "git remote"},
		// Spelled so a check on the plain name would miss it.
		{cmd: "echo x >> .bash{rc,_profile}", want: ".bashrc"},
		{cmd: `echo x > ".bashrc"`, want: ".bashrc"},
		{cmd: "go test 2>> '.zshrc'", want: ".zshrc"},
		{cmd: "echo x > a.txt 2>&1", want: ""},
		{cmd: "echo x >> .zsh?c", want: ".zshrc"},
		{cmd: "cp x ./src/../.git/hooks/pre-commit", want: ".git/"},
		{cmd: "cp --target-directory=.husky x", want: ".husky/"},
		{cmd: "cd .git && touch hooks/pre-push", want: ".git/"},
		{cmd: "touch hooks/x", cwd: ".git", want: "working directory is inside .git/"},
		{cmd: "echo x >> notes.txt", want: "resolves into .git/"},
		{cmd: "touch elsewhere/x", want: "resolves outside the project"},
	} {
		req, d := p.ask(c.cmd, c.cwd)
		mode := c.mode
		if mode == "" {
			mode = permission.Default
		}
		err := Eligible(req, d, mode)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want eligible", c.cmd, err)
		case c.want != "" && err == nil:
			t.Errorf("%q: eligible (decision %s by %v), want a refusal about %q", c.cmd, d.Action, d.Rule, c.want)
		case c.want != "" && (!errors.Is(err, ErrIneligible) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want ErrIneligible about %q", c.cmd, err, c.want)
		}
	}
}

// TestEligibleShellFacts: the shell guard's own findings refuse too, and a
// working directory outside the project does, whatever the decision says.
func TestEligibleShellFacts(t *testing.T) {
	p := newProject(t, "")
	req, d := p.ask("mkdir build", "")
	if err := Eligible(req, d, permission.Default); err != nil {
		t.Fatalf("baseline: %v", err)
	}
	for name, mut := range map[string]func(*Request){
		"no classification": func(r *Request) { r.Shell = nil },
		"outside paths": func(r *Request) {
			s := *r.Shell
			s.OutsidePaths = []string{"/etc"}
			r.Shell = &s
		},
		"parse error": func(r *Request) {
			s := *r.Shell
			s.ParseError = errors.New("x")
			r.Shell = &s
		},
		"hold": func(r *Request) {
			s := *r.Shell
			s.Hold, s.HoldReason = true, "hold: x"
			r.Shell = &s
		},
		"cwd outside":     func(r *Request) { r.Cwd = "/tmp" },
		"no project root": func(r *Request) { r.ProjectRoot = "" },
	} {
		r := req
		mut(&r)
		if err := Eligible(r, d, permission.Default); !errors.Is(err, ErrIneligible) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}
