package jev

import (
	"strings"

	"github.com/oceancode/oceancode/agent/shellguard"
)

// gitBound says why a git command destroys work git cannot give back, or
// rewrites or sends history, or "". Decisions where a subcommand has safe
// and unsafe forms:
//
//   - reset: --hard, --merge and --keep discard work-tree changes; a soft
//     or mixed reset only moves HEAD and the index (the reflog keeps both).
//   - checkout: "--", ".", a pathspec that names an existing path, more
//     than one operand, -f/--force, -m, -p, --ours/--theirs, -B and
//     --pathspec-from-file overwrite work-tree files; a lone branch name
//     switches (git refuses when local changes would be lost).
//   - restore: anything that touches the work tree (the default, -W,
//     --worktree); --staged alone only changes the index.
//   - switch: -f, --discard-changes, -m, -C/--force-create.
//   - branch and tag: any deletion (-d too: a deleted branch's reflog goes
//     with it), forced move or copy (-f, -M, -C).
//   - stash: drop and clear. pop and apply stay eligible: they keep the
//     stash when the changes do not apply cleanly.
//   - clean: all but a dry run (-n).
//   - rm: -f (git's own check against losing changes is skipped), and
//     any path git does not hold unchanged (as for rm; --cached and -n
//     leave the work tree).
//   - mv: -f.
//   - symbolic-ref -d, sparse-checkout (it deletes directories outside the
//     cone that hold only ignored files, and writes git's configuration),
//     fetch/pull --prune/--prune-tags (remote-tracking refs and local tags
//     go with their reflogs), repack -d (drops unreachable objects),
//     rerere clear/forget, bundle create onto an existing file.
//   - fetch/pull that force-updates (-f, +refspec) or rebases (pull -r).
//   - push (any), rebase (any), commit --amend, filter-branch, filter-repo,
//     update-ref, reflog expire/delete, gc, prune, replace, merge/am/
//     cherry-pick/revert --abort, checkout-index -f, read-tree -u.
func gitBound(argv []string, cwd string, g *gitState) string {
	i := shellguard.GitSubcommand(argv)
	if i < 0 {
		return ""
	}
	sub, args := argv[i], argv[i+1:]
	refuse := func(what string) string { return "destroys or rewrites git history or work (git " + what + ")" }
	if !gitCommands[sub] {
		return "runs git " + clip(sub, 30) + ", which is not one of git's own commands: an alias or a git-" + clip(sub, 30) + " program could run anything"
	}
	if why := gitRunsCommand(sub, args); why != "" {
		return why
	}
	for j, a := range args {
		out := ""
		switch {
		case strings.HasPrefix(a, "--output="):
			out = a[len("--output="):]
		case (a == "--output" || a == "-o" && (sub == "archive" || sub == "format-patch")) && j+1 < len(args):
			out = args[j+1]
		}
		if out != "" && sub != "format-patch" {
			if why := existing(cwd, out, "git "+sub+" "+a); why != "" {
				return why
			}
		}
	}
	switch sub {
	case "push", "rebase", "filter-branch", "filter-repo", "update-ref", "gc", "prune", "replace", "prune-packed":
		return refuse(sub)
	case "reset":
		if hasFlag(args, "", "--hard", "--merge", "--keep") {
			return refuse("reset --hard")
		}
	case "clean":
		if !hasFlag(args, "n", "--dry-run") {
			return refuse("clean")
		}
	case "checkout":
		return gitCheckout(args, argv[:i], cwd)
	case "restore":
		staged := hasFlag(args, "S", "--staged")
		if !staged || hasFlag(args, "W", "--worktree") {
			return refuse("restore of the work tree")
		}
	case "switch":
		if hasFlag(args, "fmC", "--force", "--discard-changes", "--merge", "--force-create") {
			return refuse("switch --discard-changes")
		}
	case "branch":
		if hasFlag(args, "dDMCf", "--delete", "--force") {
			return refuse("branch -D")
		}
	case "tag":
		if hasFlag(args, "df", "--delete", "--force") {
			return refuse("tag -d")
		}
	case "stash":
		switch firstOperand(args) {
		case "drop", "clear":
			return refuse("stash " + firstOperand(args))
		}
	case "rm":
		return gitRemove(args, argv[:i], cwd, g)
	case "mv":
		if hasFlag(args, "f", "--force") {
			return refuse(sub + " -f")
		}
	case "symbolic-ref":
		if hasFlag(args, "d", "--delete") {
			return refuse("symbolic-ref -d")
		}
	case "sparse-checkout":
		if firstOperand(args) != "list" {
			return refuse("sparse-checkout")
		}
	case "repack":
		if hasFlag(args, "d", "") {
			return refuse("repack -d")
		}
	case "rerere":
		if s := firstOperand(args); s == "clear" || s == "forget" || s == "gc" {
			return refuse("rerere " + s)
		}
	case "bundle":
		if ops := operands(args, nil); len(ops) > 1 && ops[0] == "create" {
			return existing(cwd, ops[1], "git bundle create")
		}
	case "commit":
		if hasFlag(args, "", "--amend") {
			return refuse("commit --amend")
		}
	case "fetch", "pull":
		if hasFlag(args, "f", "--force", "--rebase") || sub == "pull" && hasFlag(args, "r", "") || hasPrefixAny(args, "+") {
			return refuse(sub + " that rewrites or force-updates local branches")
		}
		if hasFlag(args, "pP", "--prune", "--prune-tags") {
			return refuse(sub + " --prune")
		}
	case "reflog":
		if s := firstOperand(args); s == "expire" || s == "delete" {
			return refuse("reflog " + s)
		}
	case "merge", "am", "cherry-pick", "revert":
		if hasFlag(args, "", "--abort", "--quit", "--skip") {
			return refuse(sub + " --abort")
		}
	case "checkout-index":
		if hasFlag(args, "f", "--force") {
			return refuse("checkout-index -f")
		}
	case "read-tree":
		if hasFlag(args, "u", "--reset") {
			return refuse("read-tree -u")
		}
	case "worktree", "submodule", "lfs", "maintenance", "notes":
		return refuse(sub)
	}
	return ""
}

// gitCheckout: see gitBound. pre are git and its own options: a lone
// operand that names an existing path is a pathspec (git checkout
// main.go discards its changes); after -C or a cd it cannot be placed, and
// fails closed.
func gitCheckout(args, pre []string, cwd string) string {
	const why = "destroys or rewrites git history or work (git checkout over work-tree files)"
	for _, a := range args {
		if a == "--" || a == "." {
			return why
		}
	}
	if hasFlag(args, "fmpB", "--force", "--merge", "--patch", "--ours", "--theirs", "--overwrite-ignore", "--pathspec-from-file", "--conflict") {
		return why
	}
	ops := operands(args, []string{"-b", "--orphan", "--track", "-t"})
	if hasFlag(args, "b", "--orphan") {
		return "" // a new branch: -b NAME [START]
	}
	if len(ops) > 1 {
		return why
	}
	if len(ops) == 1 {
		op := ops[0]
		if globby(op) || strings.HasPrefix(op, ":") || cwd == "" || contains(pre, "-C") || existing(cwd, op, "git checkout") != "" {
			return why
		}
	}
	return ""
}

// gitRemove: git rm -f skips git's check against losing changes; without
// it, git rm of a path is held unless git holds it unchanged, as for rm
// (git refuses a changed file, but the bound does not rely on it). After
// -C or a cd the paths cannot be placed.
func gitRemove(args, pre []string, cwd string, g *gitState) string {
	switch {
	case hasFlag(args, "f", "--force"):
		return "destroys or rewrites git history or work (git rm -f)"
	case hasFlag(args, "n", "--cached", "--dry-run"):
		return ""
	case hasFlag(args, "", "--pathspec-from-file"):
		return "removes paths listed in a file (git rm --pathspec-from-file)"
	case contains(pre, "-C") || hasPrefixAny(pre, "--work-tree", "--git-dir"):
		cwd = ""
	}
	return removeBound("git rm", args, cwd, g)
}

// gitRunsCommand says why git sub with args runs a command line given in
// its arguments or a tool of the user's configuration, or "".
func gitRunsCommand(sub string, args []string) string {
	switch sub {
	case "difftool", "mergetool", "instaweb", "daemon", "send-email", "credential", "bisect", "web--browse", "p4", "svn", "cvsimport", "quiltimport":
		if sub == "bisect" {
			if s := firstOperand(args); s != "run" {
				return ""
			}
		}
		return "runs a command or tool from git (git " + sub + ")"
	}
	for _, a := range args {
		n, _, _ := strings.Cut(a, "=")
		switch {
		case n == "--upload-pack", n == "--receive-pack", n == "--exec", n == "--extcmd", n == "--open-files-in-pager",
			n == "--config", n == "--template", n == "--separate-git-dir",
			sub == "grep" && strings.HasPrefix(a, "-O"),
			(sub == "clone" || sub == "fetch" || sub == "pull" || sub == "ls-remote" || sub == "archive") && a == "-u":
			return "runs a command given in its arguments (git " + sub + " " + n + ")"
		}
	}
	return ""
}

// gitCommands are git's own commands (porcelain and the plumbing an agent
// uses). Any other word after git is an alias from the repository's or
// the user's configuration, or a git-NAME program on PATH.
var gitCommands = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch bundle cat-file check-attr
		check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone
		column commit commit-graph commit-tree config count-objects credential daemon describe diff diff-files
		diff-index diff-tree difftool fetch fetch-pack filter-branch filter-repo fmt-merge-msg for-each-ref
		for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init
		instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
		merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects
		pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog remote repack replace
		request-pull rerere reset restore rev-list rev-parse revert rm send-email shortlog show show-branch
		show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag unpack-file
		unpack-objects update-index update-ref var verify-commit verify-pack verify-tag version whatchanged
		worktree write-tree lfs p4 svn cvsimport quiltimport web--browse`) {
		m[c] = true
	}
	return m
}()
