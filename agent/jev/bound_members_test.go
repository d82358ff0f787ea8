package jev

import (
	"errors"
	"testing"

	"github.com/oceancode/oceancode/agent/jev/jevtest"
	"github.com/oceancode/oceancode/agent/permission"
)

// TestBoundMembers: other members of each class of the code-side bound —
// spellings, wrappers and sibling programs an adversarial review found
// reaching the advisor — are held in code in a real git project (see
// jevtest: "internal/api.go" and "docs/todo.md" have uncommitted changes,
// data.db is ignored, main.go and notes.txt are committed and clean), so
// an advisor answering "safe" cannot let them run. The eligible forms next
// to them still reach the advisor.
func TestBoundMembers(t *testing.T) {
	p := newProject(t, jevtest.Project(t))
	held := []struct{ class, cmd string }{
		// Removal under wrappers, and wrappers that change directory.
		{"remove", "env -C internal rm api.go"},
		{"remove", "env --chdir=internal rm api.go"},
		{"remove", "env --chdir internal rm api.go"},
		{"remove", "env -Cinternal unlink api.go"},
		{"remove", "env rm data.db"},
		{"remove", "command rm data.db"},
		{"remove", "nice rm data.db"},
		{"remove", "timeout 5 rm data.db"},
		{"remove", "xargs rm data.db"},
		{"remove", "sudo rm data.db"},
		{"remove", "busybox rm data.db"},
		{"remove", "/bin/rm data.db"},
		{"remove", `\rm data.db`},
		{"remove", "rm internal/api.go"},
		{"remove", "rm ./internal/api.go"},
		{"remove", "unlink docs/todo.md"},
		{"remove", "grm data.db"},
		{"remove", "uu-rm data.db"},
		{"remove", "gtimeout 5 rm data.db"},
		{"remove", "genv rm data.db"},
		{"remove", "coreutils --coreutils-prog=rm data.db"},
		{"remove", "git rm internal/api.go"},
		{"remove", "git rm -r internal"},
		{"remove", "git rm data.db"},
		{"remove", "git -C internal rm api.go"},
		{"remove", "gio remove data.db"},
		{"remove", "zip -m new.zip data.db"},
		{"remove", "tar -cf new.tar --remove-files data.db"},
		{"remove", "rsync -a --remove-sent-files src/ newdir/"},
		// Commands a program runs from its arguments.
		{"runs", "fd -x rm"},
		{"runs", "fd --exec rm {}"},
		{"runs", "fd -e log -X rm"},
		{"runs", "fd --exec-batch=rm"},
		{"runs", "fdfind -x rm"},
		{"runs", "rg --pre rm foo"},
		{"runs", "rg --pre=./x.sh foo"},
		{"runs", "find . -execdir rm {} ;"},
		{"runs", "find . -okdir rm {} ;"},
		{"runs", "find . -fprint main.go"},
		{"runs", "gfind . -delete"},
		{"runs", "gxargs rm"},
		{"runs", "tar -cf new.tar -I 'rm data.db' src"},
		{"runs", "tar -cf new.tar -F x.sh src"},
		{"runs", "tar -cf new.tar --info-script=x.sh src"},
		{"runs", "tar -xf assets.zip --to-command=x"},
		{"runs", "sort --compress-program=x -o new.txt main.go"},
		{"runs", "split --filter='rm data.db' main.go"},
		{"runs", "man -P 'rm data.db' ls"},
		{"runs", "rename 's/a/b/' main.go"},
		{"runs", "prename 's/a/b/' main.go"},
		{"runs", "m4 x.m4"},
		{"runs", "dc -e '!rm data.db'"},
		{"runs", "cmake -E rm -f data.db"},
		{"runs", "cmake -P x.cmake"},
		{"runs", "ninja -t clean"},
		{"runs", "just clean"},
		{"runs", "tmux send-keys 'rm data.db' Enter"},
		{"runs", "xdg-open x.desktop"},
		{"runs", "LD_PRELOAD=./x.so ls"},
		{"runs", "PATH=. ls"},
		{"runs", "NODE_OPTIONS='-r ./x.js' npm test"},
		{"runs", "LESSOPEN='|rm data.db' less main.go"},
		{"runs", "npm uninstall left-pad"},
		{"runs", "yarn remove left-pad"},
		// Interpreters under other names and flag spellings.
		{"interpreter", "python3.12 -c 1"},
		{"interpreter", "python2 -c 1"},
		{"interpreter", "pypy3 -c 1"},
		{"interpreter", "pythonw -c 1"},
		{"interpreter", "python3.12-dbg -c 1"},
		{"interpreter", "python3 -Ic 1"},
		{"interpreter", "python3 -Sc 1"},
		{"interpreter", "python3 -ISc 1"},
		{"interpreter", "perl -E 1"},
		{"interpreter", "perl -ne 'system(q(id))' main.go"},
		{"interpreter", "perl -pi -e s/a/b/ main.go"},
		{"interpreter", "ruby -e 1"},
		{"interpreter", "ruby -x main.go"},
		{"interpreter", "node -e 1"},
		{"interpreter", "node -p 1"},
		{"interpreter", "node --eval=1"},
		{"interpreter", "node --print 1"},
		{"interpreter", "deno eval 1"},
		{"interpreter", "bun -e 1"},
		{"interpreter", "php -r 1"},
		{"interpreter", "php-cgi -r 1"},
		{"interpreter", "lua -e 1"},
		{"interpreter", "Rscript -e 1"},
		{"interpreter", "tclsh"},
		{"interpreter", "osascript -e 1"},
		{"interpreter", "bash -c ls"},
		{"interpreter", "zsh -c ls"},
		{"interpreter", "dash -c ls"},
		{"interpreter", "busybox sh -c ls"},
		{"interpreter", "sh -ec ls"},
		{"interpreter", "env -i bash -c ls"},
		// awk.
		{"awk", `gawk 'BEGIN{system("id")}'`},
		{"awk", `mawk 'BEGIN{system("id")}'`},
		{"awk", `nawk 'BEGIN{system("id")}'`},
		{"awk", `gawk '{print |& "cat"}' main.go`},
		{"awk", `awk '{print > "x"}' main.go`},
		{"awk", `awk 'BEGIN{"date" | getline d}'`},
		{"awk", `gawk 'BEGIN{f="sys" "tem"; @f("id")}'`},
		{"awk", "gawk -i inplace 1 main.go"},
		{"awk", "gawk --load x 1 main.go"},
		{"awk", "awk -f prog.awk main.go"},
		{"awk", "awk -bf prog.awk main.go"},
		{"awk", "awk -W exec x.awk"},
		{"awk", "mawk -Wexec x.awk"},
		{"awk", "gawk -D 'BEGIN{}'"},
		{"awk", "gawk -o main.go 'BEGIN{}'"},
		{"awk", "gawk -pmain.go 'BEGIN{}'"},
		{"awk", "gawk --dump-variables=main.go 'BEGIN{}'"},
		{"awk", "gawk --profile=main.go 'BEGIN{}'"},
		// Destructive version control.
		{"git", "git checkout -f"},
		{"git", "git checkout ."},
		{"git", "git checkout -- internal/api.go"},
		{"git", "git switch --discard-changes main"},
		{"git", "git switch -f main"},
		{"git", "git restore --staged --worktree main.go"},
		{"git", "git reset --merge"},
		{"git", "git reset --keep"},
		{"git", "git clean -xdf"},
		{"git", "git clean -ffdx"},
		{"git", "git branch --delete --force feature"},
		{"git", "git tag -d v1.0.0"},
		{"git", "git update-ref -d refs/heads/feature"},
		{"git", "git symbolic-ref -d HEAD"},
		{"git", "git stash drop"},
		{"git", "git stash clear"},
		{"git", "git push"},
		{"git", "git push --dry-run"},
		{"git", "git push -n origin main"},
		{"git", "git -C . reset --hard"},
		{"git", "git --no-pager reset --hard"},
		{"git", "git --git-dir=.git reset --hard"},
		{"git", "git worktree remove -f x"},
		{"git", "git filter-branch --tree-filter x HEAD"},
		{"git", "git sparse-checkout set docs"},
		{"git", "git fetch --prune"},
		{"git", "git fetch -P"},
		{"git", "git pull --prune"},
		{"git", "git repack -a -d"},
		{"git", "git rerere clear"},
		{"git", "git bundle create main.go HEAD"},
		// In-place overwrite and truncation.
		{"overwrite", "truncate --size 0 main.go"},
		{"overwrite", "truncate --size=0 notes.txt"},
		{"overwrite", "gtruncate -s0 main.go"},
		{"overwrite", "dd if=main.go of=internal/api.go conv=notrunc"},
		{"overwrite", "gdd of=main.go"},
		{"overwrite", "shred -u notes.txt"},
		{"overwrite", "gshred main.go"},
		{"overwrite", "echo x > internal/api.go"},
		{"overwrite", "echo x >| main.go"},
		{"overwrite", "tee internal/api.go"},
		{"overwrite", "gtee internal/api.go"},
		{"overwrite", "sponge internal/api.go"},
		{"overwrite", "sed --in-place=.bak s/a/b/ /tmp/x"},
		{"overwrite", "sed -i s/a/b/ ../x"},
		{"overwrite", "cp -T main.go internal/api.go"},
		{"overwrite", "cp --remove-destination main.go internal/api.go"},
		{"overwrite", "cp -rT cmd/tool ."},
		{"overwrite", "cp --no-target-directory -r cmd/tool ."},
		{"overwrite", "mv -T cmd/tool docs"},
		{"overwrite", "cp --target-directory internal api.go"},
		{"overwrite", "cp --target internal api.go"},
		{"overwrite", "cp -tinternal api.go"},
		{"overwrite", "mv main.go internal/api.go"},
		{"overwrite", "gcp main.go internal/api.go"},
		{"overwrite", "gmv main.go internal/api.go"},
		{"overwrite", "install main.go internal/api.go"},
		{"overwrite", "ginstall main.go internal/api.go"},
		{"overwrite", "ln -sf main.go internal/api.go"},
		{"overwrite", "gln -sf main.go internal/api.go"},
		{"overwrite", "rsync -a cmd/tool/ ."},
		{"overwrite", "rsync -a --delete src/ lib/"},
		{"overwrite", "sort -o main.go notes.txt"},
		{"overwrite", "sort --output=main.go notes.txt"},
		{"overwrite", "uniq notes.txt main.go"},
		{"overwrite", "patch -o main.go < fix.diff"},
		{"overwrite", "zip assets.zip main.go"},
		{"overwrite", "zip -d assets.zip x"},
		{"overwrite", "gpg -o main.go -d x"},
		{"overwrite", "openssl rand -out main.go 10"},
	}
	for _, c := range held {
		req, d := p.ask(c.cmd, "")
		err := Eligible(req, d, permission.Default)
		if err == nil {
			t.Errorf("%s: %q is eligible, want it held by code", c.class, c.cmd)
		} else if !errors.Is(err, ErrIneligible) {
			t.Errorf("%s: %q: %v does not wrap ErrIneligible", c.class, c.cmd, err)
		}
	}
	for _, cmd := range []string{
		"go test ./...", "go vet ./...", "go build ./...", "rm notes.txt", "env rm notes.txt", "git rm notes.txt",
		"git rm --cached internal/api.go", "git fetch origin", "git sparse-checkout list", "git repack",
		"sort -o main.go main.go", "zip new.zip main.go", "tar -cf new.tar src",
		"rsync -a src/ newdir/", "cp -n main.go internal/api.go", "cp -t docs main.go", "mv -t docs draft.md",
		"awk -F, '{print $1}' main.go", "awk -vx=1 '{print $1}' main.go", "awk -W version", "python3-config --libs",
		"cmake --version", "man ls", "npm run build",
	} {
		req, d := p.ask(cmd, "")
		if err := Eligible(req, d, permission.Default); err != nil {
			t.Errorf("%q: %v, want eligible", cmd, err)
		}
	}
	// Read-only commands are allowed before any ask; the bound itself has
	// nothing against them either.
	for _, cmd := range []string{"git status", "ls", "cat main.go", "git log --oneline", "grep -r foo .", "git diff",
		"sort main.go", "uniq notes.txt", "fd -e go", "rg --pre-glob '*.gz' foo"} {
		req, _ := p.ask(cmd, "")
		g := &gitState{}
		for i := range req.Shell.Segments {
			if why := boundSegment(&req.Shell.Segments[i], req.Cwd, g); why != "" {
				t.Errorf("%q: the bound holds it (%s)", cmd, why)
			}
		}
	}
}
