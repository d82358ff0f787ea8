package shellguard

// Floor rules for git: force pushes (every spelling of them) and shell
// aliases defined on the command line.

import "strings"

// floorGit checks git (and hub, git-push, git-send-pack): a force push, or
// a shell alias defined with -c that is floor.
func (w *walker) floorGit(argv []word, cwd string) (string, string) {
	if why := gitForcePush(argv, w.gitCfg); why != "" {
		return ShapeGitForcePush, why
	}
	if code := gitShellAlias(argv, w.gitCfg); code != "" && len(code) < 4096 {
		// git -c alias.x='!git push -f' x: the alias is a script.
		if s := w.floorOf(code, cwd); s != "" {
			return s, "runs the shell alias " + quote(code) + ", which is floor"
		}
	}
	return "", ""
}

// gitForcePush: git [global options] push (or send-pack, or an alias for
// push set with -c alias.NAME=…) that rewrites or deletes the remote's
// history: -f/--force, --force-with-lease, --force-if-includes, --mirror,
// --delete/-d, --prune, a +refspec, a :ref (delete) refspec, any
// abbreviation git accepts, or -c remote.*.mirror / remote.*.push=+….
func gitForcePush(argv []word, extra []string) string {
	i := 0
	if n := strings.ToLower(cmdName(argv[0])); n == "git" || n == "hub" {
		i = gitSubcommand(argv)
		if i <= 0 || i >= len(argv) {
			return ""
		}
	}
	sub := strings.TrimPrefix(strings.ToLower(cmdName(argv[i])), "git-")
	cfg := append(gitConfigs(argv[:max(i, 1)]), extra...)
	sub, args := gitExpandAlias(sub, argv[i+1:], cfg)
	if sub != "push" && sub != "send-pack" {
		return ""
	}
	if why := gitPushConfig(cfg); why != "" {
		return why
	}
	return gitPushArgs(args)
}

// gitExpandAlias applies the non-shell aliases among the -c settings to
// the subcommand: alias.p='push -f' makes git p a forced push.
func gitExpandAlias(sub string, args []word, cfg []string) (string, []word) {
	for _, c := range cfg {
		k, v, _ := strings.Cut(c, "=")
		k = strings.ToLower(k)
		if strings.HasPrefix(k, "alias.") && k[len("alias."):] == sub {
			f := strings.Fields(v)
			if len(f) > 0 && !strings.HasPrefix(v, "!") {
				sub = f[0]
				ext := make([]word, 0, len(f)-1+len(args))
				for _, s := range f[1:] {
					ext = append(ext, word{val: s, text: s, lit: true, known: true})
				}
				args = append(ext, args...)
			}
		}
	}
	return sub, args
}

// gitPushConfig returns why a push is forced by a -c setting (a mirror
// remote, a +refspec), or "".
func gitPushConfig(cfg []string) string {
	for _, c := range cfg {
		k, v, _ := strings.Cut(c, "=")
		k = strings.ToLower(k)
		if strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".mirror") && v != "false" && v != "0" && v != "no" && v != "off" {
			return "force-pushes (-c " + c + " mirrors the remote)"
		}
		if strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".push") && strings.HasPrefix(v, "+") {
			return "force-pushes (-c " + c + " is a forced refspec)"
		}
	}
	return ""
}

// gitPushLong is the floor's table of git push's long options: an option
// (any unambiguous prefix of one of names, at least minLen long) and the
// reason, which wraps the option as spelled.
var gitPushLong = []struct {
	names     []string
	minLen    int
	pre, post string
}{
	{[]string{"force", "force-with-lease", "force-if-includes"}, 0, "force-pushes (", " rewrites the remote's history)"},
	{[]string{"mirror"}, 0, "force-pushes (", " makes the remote a mirror, deleting and rewriting its refs)"},
	{[]string{"delete"}, 0, "deletes remote branches (", ")"},
	{[]string{"prune"}, 4, "deletes remote branches (", ")"},
}

// gitPushArgs returns why git push's arguments force the push or delete
// remote branches, or "".
func gitPushArgs(args []word) string {
	positional := 0
	dashdash := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		v := a.val
		if !a.known {
			v = a.text
		}
		switch {
		case !dashdash && v == "--":
			dashdash = true
		case !dashdash && strings.HasPrefix(v, "--") && a.known:
			if strings.HasPrefix(v, "--no-") {
				continue
			}
			why, skip := gitPushLongOpt(v)
			if why != "" {
				return why
			}
			if skip {
				j++ // the option's value
			}
		case !dashdash && strings.HasPrefix(v, "-") && len(v) > 1 && a.known:
			why, skip := gitPushShortOpts(v)
			if why != "" {
				return why
			}
			if skip {
				j++
			}
		default:
			positional++
			if strings.HasPrefix(v, "+") || strings.HasPrefix(v, `"+`) || strings.HasPrefix(v, `'+`) {
				return "force-pushes (the +refspec " + v + " rewrites the remote's history)"
			}
			if positional > 1 && strings.HasPrefix(v, ":") && len(v) > 1 {
				return "deletes a remote branch (the refspec " + v + " has no source)"
			}
		}
	}
	return ""
}

// gitPushLongOpt checks one --option of git push against gitPushLong; skip
// says the option takes the next word as its value.
func gitPushLongOpt(v string) (why string, skip bool) {
	n, _, eq := strings.Cut(v, "=")
	for _, o := range gitPushLong {
		if longOpt(n, o.names...) && len(n) >= o.minLen {
			return o.pre + n + o.post, false
		}
	}
	return "", !eq && longOpt(n, "push-option", "repo", "receive-pack", "exec") && len(n) > 3
}

// gitPushShortOpts checks a bundle of git push's short options (-f force,
// -d delete; -o takes a value); skip says the value is the next word.
func gitPushShortOpts(v string) (why string, skip bool) {
	for k := 1; k < len(v); k++ {
		if v[k] == 'o' {
			return "", k == len(v)-1 // push option value follows
		}
		if v[k] == 'f' {
			return "force-pushes (" + v + " rewrites the remote's history)", false
		}
		if v[k] == 'd' {
			return "deletes remote branches (" + v + ")", false
		}
	}
	return "", false
}

// gitSubcommand returns the index of git's subcommand after its global
// options, or -1. Option values count whether or not they are known.
func gitSubcommand(argv []word) int {
	i := 1
	for i < len(argv) {
		v := argv[i].val
		if !argv[i].known {
			return -1
		}
		switch {
		case v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--config-env" || v == "--super-prefix" || v == "--attr-source" || v == "--list-cmds":
			i += 2
		case strings.HasPrefix(v, "-"):
			i++
		default:
			return i
		}
	}
	return -1
}

// gitConfigs lists the NAME=VALUE of git's -c options.
func gitConfigs(argv []word) []string {
	var out []string
	for i := 1; i+1 < len(argv); i++ {
		if argv[i].known && argv[i].val == "-c" {
			out = append(out, argv[i+1].val)
			i++
		}
	}
	return out
}

// gitShellAlias is the script of a -c alias.NAME=!script that git's
// subcommand NAME runs, or "".
func gitShellAlias(argv []word, extra []string) string {
	hasC := len(extra) > 0
	for _, a := range argv {
		if a.val == "-c" {
			hasC = true
			break
		}
	}
	if !hasC {
		return ""
	}
	i := gitSubcommand(argv)
	if i <= 0 || i >= len(argv) {
		return ""
	}
	for _, c := range append(gitConfigs(argv[:i]), extra...) {
		k, v, _ := strings.Cut(c, "=")
		if strings.EqualFold(k, "alias."+argv[i].val) && strings.HasPrefix(v, "!") {
			return v[1:]
		}
	}
	return ""
}
