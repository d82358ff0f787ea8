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
//   - rm and mv: -f (git's own check against losing changes is skipped).
//   - push (any), rebase (any), commit --amend, filter-branch, filter-repo,
//     update-ref, reflog expire/delete, gc, prune, replace, merge/am/
//     cherry-pick/revert --abort, checkout-index -f, read-tree -u.
func gitBound(argv []string, cwd string) string {
	i := shellguard.GitSubcommand(argv)
	if i < 0 {
		return ""
	}
	sub, args := argv[i], argv[i+1:]
	refuse := func(what string) string { return "destroys or rewrites git history or work (git " + what + ")" }
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
	case "rm", "mv":
		if hasFlag(args, "f", "--force") {
			return refuse(sub + " -f")
		}
	case "commit":
		if hasFlag(args, "", "--amend", "--fixup", "--squash") {
			return refuse("commit --amend")
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
