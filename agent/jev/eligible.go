package jev

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/agent/shellguard"
)

// eligible is Eligible's body: the first refusal, or nil.
func eligible(req Request, d permission.Decision, mode permission.Mode) error {
	switch mode {
	case permission.DontAsk:
		return refuse("dontAsk gets no advice (an ask there is a deny)")
	case permission.BypassPermissions:
		return refuse("bypassPermissions asks nothing, so there is nothing to advise")
	}
	switch {
	case d.Floor:
		return refuse("the dangerous floor decided (%s)", d.Reason)
	case d.Action == permission.Deny:
		return refuse("a deny decided (%s)", d.Reason)
	case d.Action != permission.Ask:
		return refuse("the decision is %s, not an ask", d.Action)
	case d.Key != "bash":
		return refuse("the ask is under %q, not bash", d.Key)
	case !d.ResidualAsk():
		rule := "no rule"
		if d.Rule != nil {
			rule = d.Rule.String() + " (" + d.Rule.Source + ")"
		}
		return refuse("a specific rule settled the ask: %s", rule)
	}
	sr := req.Shell
	switch {
	case sr == nil:
		return refuse("the command has no shell guard classification")
	case sr.ParseError != nil:
		return refuse("the command does not parse (%v)", sr.ParseError)
	case sr.Verdict == shellguard.Floor || sr.Verdict == shellguard.Deny:
		return refuse("the shell guard's verdict is %s (%s)", sr.Verdict, sr.Reason)
	case sr.Hold:
		return refuse("the hold list always asks: %s", sr.HoldReason)
	case len(sr.OutsidePaths) > 0:
		return refuse("the command names a path outside the project (%s)", strings.Join(sr.OutsidePaths, ", "))
	}
	root := cleanRoot(req.ProjectRoot)
	if root == "" {
		return refuse("no project root")
	}
	cwd := absCwd(root, req.Cwd)
	if !inside(root, cwd) {
		return refuse("the working directory %s is outside the project %s", cwd, root)
	}
	if rel, _ := filepath.Rel(root, cwd); rel != "." {
		if p := persistence(filepath.ToSlash(rel)); p != "" {
			return refuse("the working directory is inside %s", p)
		}
	}
	// The checks below read every word the command names; a word the code
	// cannot evaluate could name anything.
	for i := range sr.Segments {
		s := &sr.Segments[i]
		if !s.Literal {
			return refuse("segment %d (%s) has expansions the checks cannot see through", i+1, clip(s.Raw, 80))
		}
		for _, r := range s.Redirects {
			if strings.ContainsAny(r, "$`") {
				return refuse("segment %d redirects to a computed target (%s)", i+1, clip(r, 80))
			}
		}
		if why := persistentSegment(s); why != "" {
			return refuse("segment %d %s", i+1, why)
		}
	}
	// The code-side bound: what no advice may approve. After a cd the
	// directory a path lands in is not followed: overwrites and removals
	// then fail closed.
	segCwd, g := cwd, &gitState{}
	for i := range sr.Segments {
		s := &sr.Segments[i]
		if len(s.Argv) > 0 {
			switch progName(s.Argv[0]) {
			case "cd", "pushd", "popd", "chdir":
				segCwd = ""
			}
		}
		if why := boundSegment(s, segCwd, g); why != "" {
			return refuse("segment %d %s", i+1, why)
		}
	}
	for _, p := range resolvedNames(root, cwd, sr) {
		if why := persistence(p); why != "" {
			return refuse("a path it names resolves into %s", why)
		}
		if strings.HasPrefix(p, "../") || p == ".." {
			return refuse("a path it names resolves outside the project (symbolic link)")
		}
	}
	return nil
}

func refuse(format string, args ...any) error {
	return fmt.Errorf("jev: eligible: "+format+": %w", append(args, ErrIneligible)...)
}

func cleanRoot(root string) string {
	if root == "" || !filepath.IsAbs(root) {
		return ""
	}
	return filepath.Clean(root)
}

// absCwd is cwd made absolute against root ("" is root).
func absCwd(root, cwd string) string {
	switch {
	case cwd == "":
		return root
	case filepath.IsAbs(cwd):
		return filepath.Clean(cwd)
	}
	return filepath.Join(root, cwd)
}

// inside reports whether p (clean, absolute) is root or under it.
func inside(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator)) || root == "/"
}

// Persistence files: files whose content runs later, as someone else, or
// configures an agent. A command that names one never reaches the advisor.
var (
	// persistNames are path components (lowercased) that make a path
	// persistent wherever they occur.
	persistNames = map[string]string{
		".git": ".git/ (hooks, config, info)", ".gitmodules": "git submodule config",
		".github": "CI workflows (.github/)", ".gitlab-ci.yml": "CI workflows (.gitlab-ci.yml)",
		".circleci": "CI workflows (.circleci/)", "jenkinsfile": "CI workflows (Jenkinsfile)",
		"azure-pipelines.yml": "CI workflows (azure-pipelines.yml)", ".buildkite": "CI workflows (.buildkite/)",
		".mcp.json": "agent settings (.mcp.json)", ".oceancode": "agent settings (.oceancode/)",
		".claude": "agent settings (.claude/)", ".codex": "agent settings (.codex/)",
		"opencode.json": "agent settings (opencode.json)", ".opencode": "agent settings (.opencode/)",
		".bashrc": "a shell rc file (.bashrc)", ".zshrc": "a shell rc file (.zshrc)", ".profile": "a shell rc file (.profile)",
		".bash_profile": "a shell rc file (.bash_profile)", ".bash_login": "a shell rc file (.bash_login)",
		".zprofile": "a shell rc file (.zprofile)", ".zshenv": "a shell rc file (.zshenv)", ".envrc": "a shell rc file (.envrc)",
		".husky": "git hooks (.husky/)", ".npmrc": "package manager config (.npmrc)", ".yarnrc": "package manager config (.yarnrc)",
		".yarnrc.yml":             "package manager config (.yarnrc.yml)",
		".pre-commit-config.yaml": "git hooks (.pre-commit-config.yaml)", "makefile": "build recipes (Makefile)",
		"gnumakefile": "build recipes (GNUmakefile)", "package.json": "package scripts (package.json)",
		// The rest of each class: every startup file the shell guard
		// classifies as code (shellguard's startupFile), the other CI
		// services' files, git's own config and the other hook managers
		// and agents.
		".zlogin": "a shell rc file (.zlogin)", ".zlogout": "a shell rc file (.zlogout)", ".bash_logout": "a shell rc file (.bash_logout)",
		".kshrc": "a shell rc file (.kshrc)", ".login": "a shell rc file (.login)", ".logout": "a shell rc file (.logout)",
		".cshrc": "a shell rc file (.cshrc)", ".tcshrc": "a shell rc file (.tcshrc)",
		".travis.yml": "CI workflows (.travis.yml)", "bitbucket-pipelines.yml": "CI workflows (bitbucket-pipelines.yml)",
		".drone.yml": "CI workflows (.drone.yml)", "appveyor.yml": "CI workflows (appveyor.yml)", ".appveyor.yml": "CI workflows (.appveyor.yml)",
		".woodpecker": "CI workflows (.woodpecker/)", ".woodpecker.yml": "CI workflows (.woodpecker.yml)",
		".gitlab": "CI workflows (.gitlab/)", ".forgejo": "CI workflows (.forgejo/)", ".gitea": "CI workflows (.gitea/)",
		".gitconfig":   "git's configuration (.gitconfig)",
		"lefthook.yml": "git hooks (lefthook.yml)", ".lefthook.yml": "git hooks (.lefthook.yml)", "lefthook-local.yml": "git hooks (lefthook-local.yml)",
		".cursor": "agent settings (.cursor/)", ".gemini": "agent settings (.gemini/)", ".vscode": "editor tasks and settings (.vscode/)",
	}
	// persistPrefixes are component prefixes (lowercased).
	persistPrefixes = []struct{ prefix, why string }{{".crush", "agent settings (.crush*)"}}
	// persistPairs are a component followed by another.
	persistPairs = []struct{ a, b, why string }{{".config", "fish", "a shell rc file (.config/fish)"}, {".config", "git", "git's configuration (.config/git)"}}
)

// persistence says which persistence file the slash path p names, or "".
// Glob metacharacters in a component are matched against the names (a
// glob could expand to one), and brace lists are expanded first.
func persistence(p string) string {
	for _, alt := range braces(strings.ToLower(p), 0) {
		if why := persistencePath(alt); why != "" {
			return why
		}
	}
	return ""
}

func persistencePath(p string) string {
	comps := strings.Split(p, "/")
	for i, c := range comps {
		if c == "" {
			continue
		}
		glob := strings.ContainsAny(c, "*?[")
		if why, ok := persistNames[c]; ok {
			return why
		}
		for _, pp := range persistPrefixes {
			if strings.HasPrefix(c, pp.prefix) || glob && globPrefix(c, pp.prefix) {
				return pp.why
			}
		}
		for _, pp := range persistPairs {
			if (c == pp.a || glob && match(c, pp.a)) && i+1 < len(comps) && (comps[i+1] == pp.b || match(comps[i+1], pp.b)) {
				return pp.why
			}
		}
		if glob {
			for name, why := range persistNames {
				if match(c, name) {
					return why
				}
			}
		}
	}
	return ""
}

// match reports whether the glob pattern could expand to name. As in bash
// (dotglob off), a leading dot is matched only by a leading dot; a
// malformed pattern is literal text, and literal text was compared already.
func match(pattern, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pattern, ".") {
		return false
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// globPrefix reports whether glob c could match a name starting with prefix.
func globPrefix(c, prefix string) bool { return match(c, prefix) || match(c, prefix+"x") }

// braces expands brace lists ({a,b}) in s, up to a bound; unbalanced
// braces are kept as they are.
func braces(s string, depth int) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 || depth > 4 {
		return []string{s}
	}
	level, close := 0, -1
	var commas []int
	for i := open; i < len(s) && close < 0; i++ {
		switch s[i] {
		case '{':
			level++
		case '}':
			level--
			if level == 0 {
				close = i
			}
		case ',':
			if level == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 {
		return []string{s}
	}
	var out []string
	start := open + 1
	for _, c := range append(commas, close) {
		for _, rest := range braces(s[close+1:], depth+1) {
			out = append(out, braces(s[:open]+s[start:c]+rest, depth+1)...)
		}
		start = c + 1
		if len(out) > 64 {
			break
		}
	}
	if len(commas) == 0 { // {x} or a range {1..3}: keep the text too
		out = append(out, s[:open]+s[open+1:close]+s[close+1:])
	}
	return out
}

// persistentSegment says why segment s names or writes a persistence file,
// or "".
func persistentSegment(s *shellguard.Segment) string {
	for _, w := range s.Argv {
		if why := persistenceWord(w); why != "" {
			return "names " + why
		}
	}
	for _, r := range s.Redirects {
		if why := persistenceWord(redirectTarget(r)); why != "" {
			return "writes " + why
		}
	}
	if len(s.Argv) == 0 {
		return ""
	}
	name := path.Base(s.Argv[0])
	sub := ""
	for _, a := range s.Argv[1:] {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	switch name {
	case "git":
	gitArgs:
		for i, a := range s.Argv[1:] {
			if a == "-c" || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path") || a == "--git-dir" || strings.HasPrefix(a, "--git-dir=") || a == "--work-tree" || strings.HasPrefix(a, "--work-tree=") {
				return "sets git's configuration or directories (git " + a + ")"
			}
			if !strings.HasPrefix(a, "-") {
				if i > 0 && s.Argv[i] == "-C" {
					continue
				}
				switch a {
				case "config", "remote", "submodule", "init", "worktree", "hook", "filter-branch", "update-ref", "replace", "notes", "lfs":
					return "writes git's own configuration (git " + a + ")"
				}
				break gitArgs
			}
		}
	case "npm", "pnpm", "yarn", "bun":
		if sub == "pkg" || sub == "set-script" || sub == "config" || sub == "set" {
			return "writes package.json or the package manager's config (" + name + " " + sub + ")"
		}
	case "pre-commit", "husky", "lefthook", "direnv":
		return "installs hooks or shell environment (" + name + ")"
	}
	return ""
}

// persistenceWord checks one word: the word itself, and each part of an
// option's value (--output=.bashrc) and of a colon-separated list.
func persistenceWord(w string) string {
	if w == "" {
		return ""
	}
	if why := persistence(w); why != "" {
		return why
	}
	for _, sep := range "=:," {
		for _, part := range strings.Split(w, string(sep)) {
			if part != w {
				if why := persistence(part); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// redirectTarget is the target of a redirection as written ("2>> log"
// → "log"); quotes are removed.
func redirectTarget(r string) string {
	i := strings.IndexAny(r, "<>")
	if i < 0 {
		return ""
	}
	t := strings.TrimLeft(r[i:], "<>&| \t")
	return strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(t)
}

// resolvedNames resolves, against the file system, every word of the
// command that names an existing path (arguments and redirect targets),
// following symbolic links, and returns each as a slash path relative to
// root ("../x" when a link leads outside). Words that name nothing are
// skipped: the lexical checks above have seen them.
func resolvedNames(root, cwd string, sr *shellguard.Result) []string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil // nothing exists under a missing root
	}
	var out []string
	add := func(w string) {
		if w == "" || strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return
		}
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		switch w {
		case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin":
			return // the shell guard's outside-path check knows them
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		real, ok := resolveLinks(p)
		if !ok {
			return
		}
		rel, err := filepath.Rel(realRoot, real)
		if err != nil {
			out = append(out, "..")
			return
		}
		out = append(out, filepath.ToSlash(rel))
	}
	for i := range sr.Segments {
		s := &sr.Segments[i]
		for j, w := range s.Argv {
			if j == 0 && !strings.Contains(w, "/") {
				continue
			}
			add(w)
		}
		for _, r := range s.Redirects {
			if t := redirectTarget(r); t != "" && !strings.HasPrefix(r, "<<") {
				add(t)
			}
		}
	}
	return out
}

// resolveLinks resolves the symbolic links of p, whose last component
// may be missing (a new file) or a link to a missing file.
func resolveLinks(p string) (string, bool) {
	for range 8 {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real, true
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			// A new file: its directory may be a link.
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return "", false
			}
			return filepath.Join(dir, filepath.Base(p)), true
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	return "", false
}

// clip cuts s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string { return shorten(s, n, "…") }
