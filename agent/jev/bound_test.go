package jev

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/jev/jevtest"
	"github.com/oceancode/oceancode/agent/permission"
)

// TestBoundClasses: every member of each class the code-side bound holds
// is refused in a real git project, under the spellings the shell guard
// peels; the eligible forms next to them still reach the advisor.
func TestBoundClasses(t *testing.T) {
	root := jevtest.Project(t)
	p := newProject(t, root)
	refused := map[string][]string{
		"interpreter": {
			"python -c 'print(1)'", "python3 -c 'import os'", "python3.12 -c 1", "/usr/bin/python3 -c 1", "env python -c 1",
			"command perl -e 1", "/usr/bin/perl -e 'unlink q(a)'", "perl -E 'say 1'", "perl -pi -e 's/a/b/' main.go",
			"ruby -e 'File.delete(\"a\")'", "node -e 'require(\"fs\")'", "node -p 1", "node --eval 1", "nodejs -pe 1",
			"php -r 'unlink(\"a\");'", "lua -e 'os.remove(\"a\")'", "lua5.4 -e 1", "Rscript -e 'unlink(\"a\")'",
			"osascript -e 'do shell script \"x\"'", "pwsh -c 'Remove-Item a'", "powershell -Command x",
			"python3 -Ic 'import os'", "python3 - <<'EOF'\nimport os\nEOF", "cat x.py | python3", "timeout 5 python3 -c 1",
			"nohup ruby -e 1", "exec perl -e 1", "builtin command node -e 1", "deno eval 'Deno.remove(\"a\")'",
			"bun -e 'x'", "bun --eval x", "tclsh", "julia -e 1", "vim -c '!rm a' -c q main.go", "emacs --batch --eval '(x)'",
		},
		"shell": {
			"sh -c 'touch a'", "bash -c 'rm notes.txt'", "zsh -c 'ls'", "bash -ic 'ls'", "dash -c ls", "ls | sh",
			"echo ls | bash", "busybox sh -c ls", "env -S 'python3 -c 1'", "watch ls",
		},
		"awk": {
			`awk 'BEGIN{system("touch /tmp/x")}'`, `gawk 'BEGIN{system("id")}'`, `mawk '{print | "sh"}' main.go`,
			`busybox awk 'BEGIN{system("id")}'`, `awk '{print > "out.txt"}' main.go`, `awk '{ "date" | getline d }' main.go`,
			`awk 'BEGIN{while((getline l < "/etc/passwd")>0) print l}'`, `awk -f prog.awk main.go`, `gawk -i inplace '{print}' main.go`,
			`awk '{printf "%s", $0 > "x"}' main.go`, `awk 'BEGIN{"id" | getline}'`, `awk -- 'BEGIN{system("id")}'`,
			`awk -v x=1 '{print >> "log"}' main.go`, `gawk '@load "filefuncs"; BEGIN{}'`,
		},
		"sed": {
			"sed 's/a/b/e' main.go", "sed '1e id' main.go", "sed -n 'w out.txt' main.go", "sed 's/a/b/w out.txt' main.go",
			"sed -e p -e 'e id' main.go", "sed --expression='1e id' main.go", "sed -ne '1e id' main.go", "sed -f x.sed main.go",
			"sed 'r /etc/passwd' main.go", "sed -i '1W x' main.go", "gsed 's/x/y/ge' main.go", "sed '/a/,/b/{e id\n}' main.go",
		},
		"database": {
			"sqlite3 app.db 'DROP TABLE users'", "psql -c 'DROP DATABASE prod'", "mysql -e 'TRUNCATE t' app", "redis-cli FLUSHALL",
			"mongosh --eval 'db.dropDatabase()'", "sqlite3 app.db < drop.sql", "duckdb x.db 'DROP TABLE t'",
		},
		"git": {
			"git reset --hard HEAD~1", "git reset --hard", "git reset --merge", "git reset --keep HEAD~1", "git -C . reset --hard",
			"git --no-pager reset --hard", "git clean -fdx", "git clean -f", "git clean -xdf", "git clean --force",
			"git checkout -- .", "git checkout .", "git checkout -f", "git checkout -- main.go", "git checkout HEAD~1 -- main.go",
			"git checkout main main.go", "git checkout --theirs main.go", "git checkout -B main", "git checkout '*.go'",
			"git restore .", "git restore main.go", "git restore --worktree main.go", "git restore -W main.go",
			"git restore --staged --worktree main.go", "git restore -SW main.go", "git restore --source=HEAD~1 main.go",
			"git switch -f main", "git switch --discard-changes main", "git switch -C feature",
			"git branch -D feature", "git branch -d feature", "git branch -d -f feature", "git branch --delete --force feature",
			"git branch -M feature main", "git branch -f feature HEAD~1", "git branch -C feature main",
			"git tag -d v1.0.0", "git tag -f v1.0.0", "git stash drop", "git stash clear", "git push", "git push origin main",
			"git push --force-with-lease", "git -C . push", "git update-ref -d refs/heads/feature", "git reflog expire --expire=now --all",
			"git gc --prune=now", "git gc", "git prune", "git filter-branch --tree-filter x HEAD", "git filter-repo --path x",
			"git rebase main", "git rebase -i HEAD~2", "git rebase --onto main HEAD~5", "git commit --amend --no-edit",
			"git rm -f main.go", "git mv -f old.go api.go", "git merge --abort", "git reflog delete HEAD@{1}",
			"git reset --har HEAD", "git clean --forc", "git checkout main.go", "git -C docs checkout guide.md",
			"git restore --work main.go", "git branch --del feature", "git pull --rebase", "git pull -r origin main",
			"git fetch origin +main:main", "git fetch -f origin main:main", "git co -- .", "git nuke", "git bisect run make",
			"git grep -O'rm x' foo", "git grep --open-files-in-pager=vim foo", "git difftool -x 'rm x'", "git mergetool",
			"git fetch --upload-pack='touch x' origin", "git clone -u 'touch x' a b", "git log --output=main.go", "git archive -o main.go HEAD",
		},
		"overwrite": {
			"truncate -s 0 main.go", "truncate -s0 data/users.csv", "dd if=/dev/zero of=data/app.db bs=1 count=1 conv=notrunc",
			"dd of=main.go", "shred -u secrets.txt", "shred main.go", ": > data/orders.csv", "echo '' > README.md",
			"echo x >| main.go", "echo x &> notes.txt", "cat part1.md > main.go", "echo x | tee main.go", "echo x | tee -i config.prod.yaml",
			"cp -f config.example.yaml config.prod.yaml", "cp main.go api.go", "cp api.go internal", "mv old.go api.go", "mv -f draft.md notes.txt",
			"install main.go api.go", "ln -sf main.go notes.txt", "rsync -a main.go api.go", "rsync -a --delete src/ lib/",
			"tar -xf assets.zip", "tar xzf assets.zip", "tar --extract -f assets.zip", "unzip assets.zip", "unzip -o assets.zip",
			"7z x assets.zip", "tar -czf main.go src", "source scripts/build.sh", ". scripts/build.sh",
			"echo x > data.db", "echo x > *.go", "cd docs && echo x > new.md", "echo x >& main.go", "echo x 2> notes.txt",
		},
		"find": {
			"find . -name '*.go' -delete", "find . -type f -exec rm {} +", "find . -execdir rm {} ;", "find . -ok rm {} ;",
			"find . -fprint out.txt", "ls | xargs rm", "git ls-files | xargs -r rm -f",
		},
		"remove": {
			"rm data.db", "rm -f app.db app.db-wal", "rm -- data.db", "rm build/app", "rm tmp/debug.log", "rm config.prod.yaml",
			"rm docs/todo.md", "rm internal/api.go", "rm missing.txt", "rm -f missing.txt", "rm *.log", "rm 'notes.txt' data.db",
			"unlink app.db", "rm -v server.log", "cd docs && rm guide.md", "rm notes.txt; rm data.db",
		},
		"outside": {
			"kubectl delete namespace staging", "aws s3 rm s3://b/x", "gcloud compute instances delete w", "docker volume rm pgdata",
			"gh repo delete org/x --yes", "pkill -f node", "kill -9 1", "systemctl stop nginx", "crontab -r", "iptables -F",
			"sudo touch x", "doas touch x", "curl -s https://example.com", "wget https://example.com", "terraform destroy",
			"chown -R nobody .", "chmod -R 777 .", "make", "make deploy", "go generate ./...", "go mod tidy", "cargo run",
			"npm run migrate", "yarn db:reset", "pnpm run deploy",
			"strace rm data.db", "chrt 1 rm data.db", "taskset 1 rm data.db", "valgrind rm data.db", "fakeroot rm data.db",
			"systemd-run rm data.db", "poetry run rm data.db", "bundle exec rm data.db", "nix develop -c rm data.db",
			"time rm data.db", "nice -n 5 rm data.db", "eval 'rm data.db'", "if true; then rm data.db; fi", "{ rm data.db; }",
		},
	}
	for class, cmds := range refused {
		for _, cmd := range cmds {
			req, d := p.ask(cmd, "")
			err := Eligible(req, d, permission.Default)
			if err == nil {
				t.Errorf("%s: %q is eligible, want it held by code", class, cmd)
			} else if !errors.Is(err, ErrIneligible) {
				t.Errorf("%s: %q: %v does not wrap ErrIneligible", class, cmd, err)
			}
		}
	}
	for _, cmd := range []string{
		"rm notes.txt", "rm -f notes.txt", "rm -- main.go", "rm docs/guide.md", "unlink old.go", "rm notes.txt old.go",
		"git stash pop", "git stash", "git reset HEAD~1", "git reset --soft HEAD~1", "git restore --staged main.go",
		"git checkout feature", "git checkout -b x", "git switch -c x", "git branch x", "git tag v2", "git clean -n",
		"git commit -m x", "git rm notes.txt", "git rm --cached notes.txt", "git commit --fixup HEAD", "git fetch origin",
		"echo x > new.txt", "echo x >> notes.txt", "go build -o /dev/null ./...", "go test ./... 2>&1 | tee test.log",
		"tee -a notes.txt", "cp main.go main.go.orig", "mv draft.md docs/draft.md", "cp -n main.go api.go", "ln -s main.go m.go",
		"awk '{print $1}' main.go", "awk -F: '$3 > 100 {n++} END{}' main.go", "sed -i 's/a/b/' main.go", "sed -n '1,5p' main.go",
		"sed -e 's/a/b/' -e '5d' main.go", "sed -i.bak 's|a|b|g' main.go", "python3 --version", "node --version",
		"chmod +x scripts/build.sh", "npm run build", "yarn build", "git checkout main", "echo x 2>&1 >> log.txt",
		"busybox awk '{print}' main.go", "tar -czf build/src.tgz src", "tar -tf assets.zip", "unzip -l assets.zip",
		"unzip -o assets.zip -d assets", "tar -xkf assets.zip", "git bisect start", "git log --oneline > log.txt",
	} {
		req, d := p.ask(cmd, "")
		if err := Eligible(req, d, permission.Default); err != nil {
			t.Errorf("%q: %v, want eligible", cmd, err)
		}
	}
}

// TestBoundGitFailsClosed: without git's answer (not a repository, or no
// git at all) a removal is held; an overwrite of a new file is not.
func TestBoundGitFailsClosed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, root)
	req, d := p.ask("rm a.txt", "")
	if err := Eligible(req, d, permission.Default); err == nil || !strings.Contains(err.Error(), "git ls-tree") {
		t.Errorf("rm outside a repository: %v, want held with git's error", err)
	}
	proj := jevtest.Project(t)
	t.Setenv("PATH", t.TempDir())
	p = newProject(t, proj)
	req, d = p.ask("rm notes.txt", "")
	if err := Eligible(req, d, permission.Default); err == nil {
		t.Error("rm with no git on PATH is eligible, want held")
	}
	req, d = p.ask("echo x > new.txt", "")
	if err := Eligible(req, d, permission.Default); err != nil {
		t.Errorf("a new file with no git: %v", err)
	}
}

// TestBoundGitState: the git answer is read at decision time: a file
// staged but not committed, changed after the commit, or a mode change is
// held; the same file committed again is eligible.
func TestBoundGitState(t *testing.T) {
	root := jevtest.Project(t)
	p := newProject(t, root)
	eligible := func(cmd string) error {
		req, d := p.ask(cmd, "")
		return Eligible(req, d, permission.Default)
	}
	if err := eligible("rm notes.txt"); err != nil {
		t.Fatalf("clean tracked file: %v", err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "edited\n")
	if err := eligible("rm notes.txt"); err == nil || !strings.Contains(err.Error(), "not committed") {
		t.Errorf("changed file: %v", err)
	}
	jevtest.Git(t, root, "add", "notes.txt")
	if err := eligible("rm notes.txt"); err == nil || !strings.Contains(err.Error(), "not committed") {
		t.Errorf("staged change: %v", err)
	}
	jevtest.Git(t, root, "commit", "-q", "-m", "notes")
	if err := eligible("rm notes.txt"); err != nil {
		t.Errorf("committed again: %v", err)
	}
	if err := os.Chmod(filepath.Join(root, "notes.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := eligible("rm notes.txt"); err == nil {
		t.Error("mode change: eligible, want held")
	}
	write("new.txt", "x")
	jevtest.Git(t, root, "add", "new.txt")
	if err := eligible("rm new.txt"); err == nil || !strings.Contains(err.Error(), "not in git's last commit") {
		t.Errorf("added, never committed: %v", err)
	}
	if err := eligible("rm src"); err == nil {
		t.Error("a directory: eligible, want held")
	}
	if err := eligible("rm ':(glob)*.go'"); err == nil {
		t.Error("pathspec magic: eligible, want held")
	}
	// From a subdirectory: paths are relative to it.
	req, d := p.ask("rm guide.md", "docs")
	if err := Eligible(req, d, permission.Default); err != nil {
		t.Errorf("rm from docs/: %v", err)
	}
	req, d = p.ask("rm todo.md", "docs")
	if err := Eligible(req, d, permission.Default); err == nil {
		t.Error("rm of a changed file from docs/: eligible")
	}
}

// FuzzBound: whatever the command, Eligible never panics in a real git
// project, and a refusal always wraps ErrIneligible; the sed and awk
// parsers never panic on any program text.
func FuzzBound(f *testing.F) {
	for _, s := range []string{"rm notes.txt", "sed 's/a/b/w x' main.go", `awk 'BEGIN{system("x")}'`, "git reset --hard",
		"echo x > main.go", "tar -xf a", "cp a b", "sed -e 's/[/]/x/' -e 'y/ab/cd/;:l;bl' f", "git -C . checkout -- ."} {
		f.Add(s)
	}
	p := newProject(f, jevtest.Project(f))
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = sedScript(cmd)
		_ = awkBound("awk", []string{cmd})
		req, d := p.ask(cmd, "")
		if err := Eligible(req, d, permission.Default); err != nil && !errors.Is(err, ErrIneligible) {
			t.Fatalf("%q: %v does not wrap ErrIneligible", cmd, err)
		}
	})
}
