package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// floor checks a peeled command against the dangerous floor. It returns the
// shape and the reason's tail ("removes the filesystem root"), or "".
func (w *walker) floor(argv []word, x ctx, p peeled, cwd string) (string, string) {
	if len(argv) == 0 {
		return "", ""
	}
	if argv[0].dl {
		return ShapePipeToShell, "runs a command line that comes from a download or decoder"
	}
	if s, why := w.floorCmd(argv, cwd); s != "" {
		return s, why
	}
	if a := argv[0]; !a.known && a.altOK && a.alt != "" && a.alt != anyValue && !strings.Contains(a.alt, " ") {
		// ${X:-rm} -rf /: the command name when the parameter is unset.
		alt := make([]word, len(argv))
		copy(alt, argv)
		alt[0] = word{val: a.alt, text: a.text, known: true}
		if s, why := w.floorCmd(alt, cwd); s != "" {
			return s, why
		}
	}
	n := strings.ToLower(cmdName(argv[0]))
	runner := isShell(n) || isInterpreter(n) || n == "eval" || n == "source" || n == "."
	if x.stdinDL {
		if (isShell(n) || isInterpreter(n)) && readsProgramFromStdin(argv) {
			return ShapePipeToShell, "runs a script piped from a download or decoder"
		}
		if p.xargs && runner {
			return ShapePipeToShell, "runs code xargs reads from a download or decoder"
		}
		if n == "sudo" && hasOpt(argv, "si", "shell", "login") || n == "doas" && hasOpt(argv, "s") || n == "su" && !hasOpt(argv, "c", "command") {
			return ShapePipeToShell, "runs a shell on a script piped from a download or decoder"
		}
		if (n == "deno" || n == "bun") && len(argv) > 2 && argv[1].val == "run" && hasWord(argv[2:], "-") {
			return ShapePipeToShell, "runs a program piped from a download or decoder (" + n + " run -)"
		}
		if why := stdinCode(n, argv); why != "" {
			return ShapePipeToShell, why
		}
	}
	if x.stdinTree != "" && n == "parallel" {
		// find / | parallel rm -rf: parallel runs its command on each line.
		for j := 1; j < len(argv); j++ {
			switch strings.ToLower(cmdName(argv[j])) {
			case "rm", "unlink", "shred", "rmdir", "mv":
				return ShapeRmRoot, "removes what find lists under " + x.stdinTree + " (find | parallel " + argv[j].val + ")"
			case "chmod", "chown", "chgrp", "setfacl", "chattr":
				return ShapePermRoot, "changes everything find lists under " + x.stdinTree + " (find | parallel " + argv[j].val + ")"
			}
		}
	}
	if x.stdinTree != "" && p.xargs {
		switch n {
		case "rm", "unlink", "shred", "rmdir":
			return ShapeRmRoot, "removes what find lists under " + x.stdinTree + " (find | xargs " + n + ")"
		case "chmod", "chown", "chgrp", "setfacl", "chattr":
			return ShapePermRoot, "changes everything find lists under " + x.stdinTree + " (find | xargs " + n + ")"
		}
	}
	if isInterpreter(n) && x.hasStdin && readsProgramFromStdin(argv) && forkLoop(x.stdin) {
		return ShapeForkBomb, "forks in an endless loop (a fork bomb)"
	}
	if f := w.runsDownloaded(argv, n, cwd); f != "" {
		return ShapePipeToShell, "runs " + f + ", downloaded earlier in the same command"
	}
	if p.uncertain || execWrapper(n) {
		// A wrapper option we do not know may have taken the next word as
		// its value, or a program that runs its arguments as a command
		// (chroot DIR CMD, flock FILE CMD, taskset MASK CMD, strace CMD):
		// try every later word as the command.
		for j := 1; j < len(argv); j++ {
			if s, why := w.floorCmd(argv[j:], cwd); s != "" {
				return s, why
			}
		}
	}
	return "", ""
}

func (w *walker) floorCmd(argv []word, cwd string) (string, string) {
	name := strings.ToLower(cmdName(argv[0]))
	if isShell(name) || isInterpreter(name) || name == "source" || name == "." || name == "eval" {
		for _, a := range argv[1:] {
			if a.dl {
				return ShapePipeToShell, "runs a downloaded or decoded script"
			}
		}
	}
	switch {
	case name == "":
		return "", ""
	case name == "rm":
		if why := w.rmRoot(argv, cwd); why != "" {
			return ShapeRmRoot, why
		}
	case name == "find":
		return w.findRoot(argv, cwd)
	case name == "rsync":
		if why := w.rsyncDelete(argv, cwd); why != "" {
			return ShapeRmRoot, why
		}
	case name == "gh" && len(argv) > 2 && argv[1].val == "repo" && argv[2].val == "sync" && hasOpt(argv[2:], "", "force"):
		return ShapeGitForcePush, "force-pushes (gh repo sync --force hard-resets the destination branch)"
	case name == "git" || name == "hub" || name == "git-push" || name == "git-send-pack":
		if why := gitForcePush(argv, w.gitCfg); why != "" {
			return ShapeGitForcePush, why
		}
		if code := gitShellAlias(argv, w.gitCfg); code != "" && len(code) < 4096 {
			// git -c alias.x='!git push -f' x: the alias is a script.
			if r := w.c.Classify(code, cwd); r.Verdict == Floor {
				for _, s := range r.Segments {
					if s.Verdict == Floor {
						return s.Shape, "runs the shell alias " + quote(code) + ", which is floor"
					}
				}
			}
		}
	case name == "dd":
		for _, a := range argv[1:] {
			if a.known && strings.HasPrefix(a.val, "of=") {
				if t := resolveIn(a.val[3:], cwd); t != "" && isDevice(t) {
					return ShapeDDDevice, "writes raw data onto device " + t
				}
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp" || name == "setfacl" || name == "chattr":
		return w.permRoot(name, argv, cwd)
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "mkdosfs" || name == "mkntfs" || name == "mkexfatfs":
		return ShapeMkfs, "formats a filesystem"
	case name == "wipefs":
		if hasOpt(argv, "ao", "all", "offset") {
			return ShapeMkfs, "wipes filesystem signatures"
		}
	case name == "parallel" || name == "sem":
		// GNU parallel CMD ::: ARGS runs CMD ARG for each ARG; without a
		// command each ARG is a command line.
		sep := -1
		for i, a := range argv {
			if a.val == ":::" || a.val == "::::" {
				sep = i
				break
			}
		}
		if sep > 0 {
			cmd := argv[1:sep]
			for len(cmd) > 0 && strings.HasPrefix(cmd[0].val, "-") {
				cmd = cmd[1:]
			}
			for _, a := range argv[sep+1:] {
				line := a.val
				if len(cmd) > 0 {
					line = joinVals(cmd) + " " + a.val
				}
				if r := w.c.Classify(line, cwd); r.Verdict == Floor {
					for _, s := range r.Segments {
						if s.Verdict == Floor {
							return s.Shape, "runs " + quote(line) + " (parallel), which is floor"
						}
					}
				}
			}
		}
	case name == "env":
		// env -S 'CMD ARGS' splits its value into the command line it runs.
		for i := 1; i < len(argv); i++ {
			v, split := argv[i].val, ""
			switch {
			case (v == "-S" || v == "--split-string") && i+1 < len(argv):
				split = argv[i+1].val
				i++
			case strings.HasPrefix(v, "--split-string="):
				split = v[len("--split-string="):]
			case strings.HasPrefix(v, "-S") && !strings.HasPrefix(v, "--"):
				split = v[2:]
			case strings.HasPrefix(v, "-") || isAssignWord(v):
				continue
			}
			if split == "" {
				continue
			}
			rest := make([]string, 0, len(argv)-i)
			rest = append(rest, split)
			for _, a := range argv[i+1:] {
				rest = append(rest, a.val)
			}
			if r := w.c.Classify(strings.Join(rest, " "), cwd); r.Verdict == Floor {
				for _, s := range r.Segments {
					if s.Verdict == Floor {
						return s.Shape, "runs " + quote(split) + " (env -S), which is floor"
					}
				}
			}
		}
	case name == "mv":
		// Moving a protected directory away removes it from its place.
		// With -t DIR (--target-directory) every operand is a source.
		var ops []word
		target := false
		for j := 1; j < len(argv); j++ {
			a := argv[j]
			if a.known && (a.val == "-t" || longOpt(a.val, "target-directory") && len(a.val) > 3 && !strings.Contains(a.val, "=")) {
				target = true
				j++
				continue
			}
			if a.known && (strings.HasPrefix(a.val, "--targ") && strings.Contains(a.val, "=") || strings.HasPrefix(a.val, "-t") && !strings.HasPrefix(a.val, "--")) {
				target = true
				continue
			}
			if !(a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1) {
				ops = append(ops, a)
			}
		}
		if !target && len(ops) > 0 {
			ops = ops[:len(ops)-1]
		}
		if len(ops) >= 1 {
			for _, a := range ops {
				if d := w.protectedTarget(a, cwd); d != "" {
					return ShapeRmRoot, "moves away " + d
				}
			}
		}
		if why := w.deviceTool(name, argv, cwd); why != "" {
			return ShapeDeviceWrite, why
		}
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		if s, why := w.interpreterFloor(argv, cwd); s != "" {
			return s, why
		}
	case isInterpreter(name):
		for _, a := range argv[1:] {
			if a.known && forkLoop(a.val) {
				return ShapeForkBomb, "forks in an endless loop (a fork bomb)"
			}
		}
		if s, why := w.interpreterFloor(argv, cwd); s != "" {
			return s, why
		}
	case name == "nc" || name == "ncat" || name == "netcat" || name == "socat":
		if why := netExec(name, argv); why != "" {
			return ShapePipeToShell, why
		}
	default:
		if why := w.deviceTool(name, argv, cwd); why != "" {
			return ShapeDeviceWrite, why
		}
	}
	return "", ""
}

func resolveIn(v, cwd string) string {
	if v == "" {
		return ""
	}
	if v[0] == '/' {
		return path.Clean(v)
	}
	if cwd == "" {
		return ""
	}
	return path.Join(cwd, v)
}

// target is the value the floor checks for a word: its value, or for a
// word with unknown expansions the value they take when unset or at their
// default (rm -rf $UNSET/ is rm -rf /, ${X:-/} is /).
func target(a word) (string, bool) {
	if a.known {
		return a.val, true
	}
	if !a.altOK {
		return "", false
	}
	if a.alt == anyValue {
		return "/", true
	}
	if strings.Contains(a.alt, anyValue) {
		return "", false
	}
	return a.alt, true
}

// longOpt reports whether a --name[=value] word abbreviates one of long
// (GNU and git accept any unique prefix; an ambiguous one is an error, so
// counting it errs on the strict side).
func longOpt(v string, long ...string) bool {
	if !strings.HasPrefix(v, "--") {
		return false
	}
	n, _, _ := strings.Cut(v[2:], "=")
	if n == "" {
		return false
	}
	for _, l := range long {
		if strings.HasPrefix(l, n) {
			return true
		}
	}
	return false
}

// hasOpt reports whether argv carries one of the short options (in any
// bundle) or an abbreviation of one of the long ones, before "--".
func hasOpt(argv []word, short string, long ...string) bool {
	for _, a := range argv[1:] {
		if !a.known {
			continue
		}
		v := a.val
		if v == "--" {
			return false
		}
		if strings.HasPrefix(v, "--") {
			if longOpt(v, long...) {
				return true
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], short) {
			return true
		}
	}
	return false
}

// rmRoot: rm with -r (any spelling) on a protected directory. -f is not
// required: a non-interactive rm -r does not prompt.
func (w *walker) rmRoot(argv []word, cwd string) string {
	recursive, maybe := false, false
	var ops []word
	dashdash := false
	for _, a := range argv[1:] {
		if !dashdash && a.known && len(a.val) > 1 && a.val[0] == '-' {
			if a.val == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(a.val, "--") {
				if longOpt(a.val, "recursive") {
					recursive = true
				}
				continue
			}
			if strings.ContainsAny(a.val[1:], "rR") {
				recursive = true
			}
			continue
		}
		if !a.known {
			maybe = true // $FLAGS may hold -rf
		}
		ops = append(ops, a)
	}
	if !recursive && !maybe {
		return ""
	}
	for _, a := range ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			return "removes " + d
		}
	}
	return ""
}

// findRoot: find over a protected directory that deletes (-delete, -exec
// rm …) or changes permissions (-exec chmod …) of what it finds.
func (w *walker) findRoot(argv []word, cwd string) (string, string) {
	d, i := w.findProtected(argv, cwd)
	if d == "" {
		return "", ""
	}
	for j := i; j < len(argv); j++ {
		switch argv[j].val {
		case "-delete":
			return ShapeRmRoot, "deletes everything it finds under " + d
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 >= len(argv) {
				continue
			}
			switch execName(argv[j+1:]) {
			case "rm", "unlink", "shred", "rmdir", "srm", "wipe", "rsync", "mv":
				return ShapeRmRoot, "runs " + argv[j+1].text + " on everything it finds under " + d
			case "chmod", "chown", "chgrp", "setfacl", "chattr":
				return ShapePermRoot, "runs " + argv[j+1].text + " on everything it finds under " + d
			}
		}
	}
	return "", ""
}

// findProtected describes the first protected directory find starts from
// ("" if none) and returns the index of its first expression word.
func (w *walker) findProtected(argv []word, cwd string) (string, int) {
	i := 1
	for i < len(argv) && argv[i].known {
		v := argv[i].val
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			i++
			continue
		}
		if v == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []word
	for i < len(argv) {
		a := argv[i]
		if a.known && (strings.HasPrefix(a.val, "-") && a.val != "-" || a.val == "(" || a.val == "!" || a.val == ",") {
			break
		}
		starts = append(starts, a)
		i++
	}
	if len(starts) == 0 {
		starts = append(starts, word{val: ".", text: ".", lit: true, known: true})
	}
	for _, s := range starts {
		if d := w.protectedTarget(s, cwd); d != "" {
			return d, i
		}
	}
	return "", i
}

// execName is the program find -exec runs (through sh -c 'CODE' it is the
// first of rm, shred, … the code names).
func execName(a []word) string {
	n := strings.ToLower(cmdName(a[0]))
	if !isShell(n) {
		return n
	}
	for _, x := range a[1:] {
		for _, f := range strings.FieldsFunc(x.val, func(r rune) bool { return r == ' ' || r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' }) {
			switch base(f) {
			case "rm", "unlink", "shred", "chmod", "chown", "chgrp":
				return base(f)
			}
		}
	}
	return n
}

// rsyncDelete: rsync --delete (any of its forms) onto a protected
// directory, or --remove-source-files from one.
func (w *walker) rsyncDelete(argv []word, cwd string) string {
	del, rmSrc := false, false
	var ops []word
	for _, a := range argv[1:] {
		if a.known && strings.HasPrefix(a.val, "--") {
			if strings.HasPrefix(a.val, "--del") {
				del = true
			}
			if longOpt(a.val, "remove-source-files") && len(a.val) > len("--rem") {
				rmSrc = true
			}
			continue
		}
		if a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1 {
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) == 0 {
		return ""
	}
	if del {
		if d := w.protectedTarget(ops[len(ops)-1], cwd); d != "" {
			return "deletes what the source lacks from " + d
		}
	}
	if rmSrc {
		for _, a := range ops[:len(ops)-1] {
			if d := w.protectedTarget(a, cwd); d != "" {
				return "removes the files it copies from " + d
			}
		}
	}
	return ""
}

// protectedTarget describes a that names a protected directory (or
// everything under one, via a glob), "" otherwise.
func (w *walker) protectedTarget(a word, cwd string) string {
	v, ok := target(a)
	if !ok || v == "" {
		return ""
	}
	if v[0] != '/' {
		if cwd == "" {
			return ""
		}
		v = cwd + "/" + v
	}
	if a.glob {
		g := strings.IndexAny(v, "*?[")
		if g >= 0 {
			slash := strings.LastIndexByte(v[:g], '/')
			dir := path.Clean(v[:slash+1])
			rest := strings.TrimRight(v[slash+1:], "/")
			if dir == "/" {
				return "everything under /"
			}
			if !strings.Contains(rest, "/") && w.protected(dir) {
				return "everything under " + w.display(dir)
			}
			return ""
		}
	}
	c := path.Clean(v)
	if w.protected(c) {
		switch {
		case c == "/":
			return "the filesystem root"
		case c == w.c.home:
			return "the home directory"
		case path.Dir(c) == "/home" || path.Dir(c) == "/Users" || c == "/root":
			return "a home directory (" + w.display(c) + ")"
		}
		return "system directory " + c
	}
	return ""
}

func (w *walker) display(p string) string {
	if w.c.home == homeSentinel && (p == homeSentinel || strings.HasPrefix(p, homeSentinel+"/")) {
		return "~" + p[len(homeSentinel):]
	}
	return p
}

var protectedDirs = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/libx32": true, "/opt": true, "/proc": true, "/root": true, "/sbin": true,
	"/srv": true, "/sys": true, "/usr": true, "/var": true, "/mnt": true, "/media": true, "/snap": true,
	"/usr/bin": true, "/usr/sbin": true, "/usr/lib": true, "/usr/lib64": true, "/usr/local": true,
	"/usr/share": true, "/usr/include": true, "/usr/libexec": true, "/var/lib": true, "/var/log": true,
	"/Users": true, "/System": true, "/Library": true, "/Applications": true, "/private": true,
	"/private/etc": true, "/private/var": true, "/Volumes": true,
}

func (w *walker) protected(c string) bool {
	if protectedDirs[c] || c == w.c.home {
		return true
	}
	d := path.Dir(c)
	return d == "/home" || d == "/Users"
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
	args := argv[i+1:]
	cfg := append(gitConfigs(argv[:max(i, 1)]), extra...)
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
	if sub != "push" && sub != "send-pack" {
		return ""
	}
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
			n, _, eq := strings.Cut(v, "=")
			switch {
			case longOpt(n, "force", "force-with-lease", "force-if-includes"):
				return "force-pushes (" + n + " rewrites the remote's history)"
			case longOpt(n, "mirror"):
				return "force-pushes (" + n + " makes the remote a mirror, deleting and rewriting its refs)"
			case longOpt(n, "delete"):
				return "deletes remote branches (" + n + ")"
			case longOpt(n, "prune") && len(n) > 3:
				return "deletes remote branches (" + n + ")"
			case !eq && longOpt(n, "push-option", "repo", "receive-pack", "exec") && len(n) > 3:
				j++ // the option's value
			}
		case !dashdash && strings.HasPrefix(v, "-") && len(v) > 1 && a.known:
			for k := 1; k < len(v); k++ {
				if v[k] == 'o' {
					if k == len(v)-1 {
						j++
					}
					break // push option value follows
				}
				if v[k] == 'f' {
					return "force-pushes (" + v + " rewrites the remote's history)"
				}
				if v[k] == 'd' {
					return "deletes remote branches (" + v + ")"
				}
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

// permRoot: a recursive permission, ownership, ACL or attribute change of
// a protected directory, with options anywhere (GNU permutation) and long
// options abbreviated.
func (w *walker) permRoot(name string, argv []word, cwd string) (string, string) {
	recursive, reference := false, false
	slot := "" // chmod's mode, chown's owner, chgrp's group, chattr's mode
	needSlot := name != "setfacl"
	var ops []word
	dashdash := false
	for j := 1; j < len(argv); j++ {
		a := argv[j]
		v := a.val
		if !a.known {
			if needSlot && slot == "" && !reference {
				slot = a.text
				continue
			}
			ops = append(ops, a)
			continue
		}
		if dashdash || v == "-" || len(v) < 2 || v[0] != '-' && !(name == "chattr" && (v[0] == '+' || v[0] == '=')) {
			if needSlot && slot == "" && !reference {
				slot = v
				continue
			}
			ops = append(ops, a)
			continue
		}
		if v == "--" {
			dashdash = true
			continue
		}
		if strings.HasPrefix(v, "--") {
			n, _, eq := strings.Cut(v, "=")
			switch {
			case longOpt(n, "recursive") && len(n) > 3:
				recursive = true
			case longOpt(n, "reference") && len(n) > 4:
				reference = true
				if !eq {
					j++
				}
			case name == "setfacl" && longOpt(n, "modify", "remove", "set", "set-file", "modify-file", "remove-file", "restore") && !eq:
				j++
			case name == "chown" && longOpt(n, "from") && !eq:
				j++
			}
			continue
		}
		opts := map[string]string{"chmod": "RcfvHLP", "chown": "RcfvhHLP", "chgrp": "RcfvhHLP", "setfacl": "RbkndLPtmMxX", "chattr": "RVfvp"}[name]
		if strings.Trim(v[1:], opts) != "" {
			// chmod -w, chattr -i: a mode, not options.
			if needSlot && slot == "" {
				slot = v
				continue
			}
			ops = append(ops, a)
			continue
		}
		for k := 1; k < len(v); k++ {
			c := v[k]
			if c == 'R' {
				recursive = true
			}
			if name == "setfacl" && strings.IndexByte("mMxX", c) >= 0 || name == "chattr" && (c == 'v' || c == 'p') {
				if k == len(v)-1 {
					j++
				}
				break
			}
		}
	}
	if !recursive {
		return "", ""
	}
	for _, a := range ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			if name == "chmod" && worldWritable(slot) {
				return ShapeChmod777Root, "makes " + d + " world-writable, recursively"
			}
			verb := map[string]string{"chmod": "changes the permissions of ", "chown": "changes the owner of ", "chgrp": "changes the group of ",
				"setfacl": "changes the ACLs of ", "chattr": "changes the attributes of "}[name]
			return ShapePermRoot, verb + d + ", recursively"
		}
	}
	return "", ""
}

func worldWritable(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		last := mode[len(mode)-1] - '0'
		return last&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		whoPart := clause[:len(clause)-len(who)]
		if who == "" || (who[0] != '+' && who[0] != '=') {
			continue
		}
		if !strings.Contains(who, "w") {
			continue
		}
		if whoPart == "" || strings.ContainsAny(whoPart, "ao") {
			return true
		}
	}
	return false
}

// deviceTool: programs that overwrite, discard or repartition a block
// device, and copies onto one.
func (w *walker) deviceTool(name string, argv []word, cwd string) string {
	dev := func(a word) string {
		if !a.known || strings.HasPrefix(a.val, "-") {
			return ""
		}
		if t := resolveIn(a.val, cwd); t != "" && isDevice(t) {
			return t
		}
		return ""
	}
	operands := func() []word {
		var ops []word
		for _, a := range argv[1:] {
			if !(a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1) {
				ops = append(ops, a)
			}
		}
		return ops
	}
	switch name {
	case "tee":
		for _, a := range argv[1:] {
			if t := dev(a); t != "" {
				return "writes onto device " + t
			}
		}
	case "cp", "mv", "install", "ddrescue", "dcfldd", "pv":
		ops := operands()
		for i, a := range argv[1:] {
			if a.known && (a.val == "-t" || a.val == "--target-directory") && i+2 < len(argv) {
				ops = append(ops, argv[i+2])
			} else if a.known && strings.HasPrefix(a.val, "--target-directory=") {
				v := a.val[len("--target-directory="):]
				ops = append(ops, word{val: v, text: v, known: true})
			}
		}
		if name == "ddrescue" && len(ops) >= 2 {
			ops = ops[1:2]
		} else if len(ops) > 0 && name != "pv" {
			ops = ops[len(ops)-1:]
		}
		for _, a := range ops {
			if t := dev(a); t != "" {
				return "writes onto device " + t
			}
		}
	case "shred", "blkdiscard", "badblocks":
		if name == "badblocks" && !hasOpt(argv, "wn") {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return map[string]string{"shred": "overwrites device ", "blkdiscard": "discards every block of device ", "badblocks": "overwrites device "}[name] + t
			}
		}
		if name == "blkdiscard" && len(operands()) > 0 {
			return "discards every block of a device"
		}
	case "fdisk", "sfdisk", "sgdisk", "gdisk", "cgdisk", "cfdisk", "parted", "partx", "kpartx":
		if partitionListing(name, argv) {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return "repartitions device " + t
			}
		}
		if name != "partx" && name != "kpartx" {
			for _, a := range operands() {
				if !a.known {
					return "repartitions a device"
				}
			}
		}
	case "nvme":
		if len(argv) > 1 {
			switch argv[1].val {
			case "format", "sanitize", "write", "write-zeroes", "dsm", "write-uncor":
				return "erases or overwrites an NVMe device (nvme " + argv[1].val + ")"
			}
		}
	case "cryptsetup":
		for _, a := range argv[1:] {
			switch strings.ToLower(a.val) {
			case "luksformat", "erase", "lukserase", "reencrypt":
				return "destroys the data on a device (cryptsetup " + a.val + ")"
			}
		}
	case "hdparm":
		if hasOpt(argv, "", "security-erase", "security-erase-enhanced", "trim-sector-ranges", "trim-sector-ranges-stdin", "write-sector", "make-bad-sector") {
			return "erases or overwrites a disk (hdparm)"
		}
	case "pvcreate", "pvremove", "zpool", "mdadm", "wipe", "mkfs.zfs":
		// Volume managers that label or wipe a device named on the
		// command line (pvremove /dev/sda, zpool create tank /dev/sdb,
		// mdadm --create … /dev/sdX, mdadm --zero-superblock /dev/sdX).
		if name == "zpool" && (len(argv) < 2 || argv[1].val != "create" && argv[1].val != "labelclear" && argv[1].val != "add" && argv[1].val != "attach" && argv[1].val != "replace") {
			return ""
		}
		if name == "mdadm" && !hasOpt(argv, "CG", "create", "zero-superblock", "grow", "build") {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return "writes a volume label onto device " + t + " (" + name + ")"
			}
		}
	}
	return ""
}

// partitionListing reports whether a partitioning tool only lists (fdisk -l,
// sfdisk -l/-d/-J, sgdisk -p, parted -l or parted DEV print).
func partitionListing(name string, argv []word) bool {
	switch name {
	case "fdisk", "gdisk":
		return hasOpt(argv, "l", "list")
	case "sfdisk":
		return hasOpt(argv, "ldJFsVg", "list", "dump", "json", "list-free", "show-size", "verify", "show-geometry", "list-types")
	case "sgdisk":
		for _, a := range argv[1:] {
			if !a.known {
				return false
			}
			v := a.val
			switch {
			case v == "-p" || v == "--print" || v == "-v" || v == "--verify" || v == "-O" || v == "--print-mbr" || v == "-L" || v == "--list-types" || v == "-P" || v == "--pretend":
			case strings.HasPrefix(v, "-i") || strings.HasPrefix(v, "--info"):
			case !strings.HasPrefix(v, "-"):
			default:
				return false
			}
		}
		return true
	case "parted":
		if hasOpt(argv, "lvh", "list", "version", "help") {
			return true
		}
		seenDev := false
		for _, a := range argv[1:] {
			if !a.known {
				return false
			}
			v := a.val
			if strings.HasPrefix(v, "-") {
				continue
			}
			if !seenDev {
				seenDev = true
				continue
			}
			if v != "print" && v != "p" && v != "unit" && v != "help" && v != "s" && v != "B" && v != "MB" && v != "GB" && v != "MiB" && v != "GiB" && v != "%" && v != "cyl" && v != "chs" && v != "compact" && v != "free" {
				return false
			}
		}
		return true
	case "partx", "kpartx":
		return !hasOpt(argv, "adu", "add", "delete", "update")
	}
	return false
}

// netExec: a network tool that runs a program on the connection (nc -e,
// ncat --sh-exec, socat TCP:… EXEC:…): a remote shell.
func netExec(name string, argv []word) string {
	if name == "socat" {
		exec, net := false, false
		for _, a := range argv[1:] {
			u := strings.ToUpper(a.val)
			if strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:") {
				exec = true
			}
			for _, p := range []string{"TCP", "UDP", "SCTP", "OPENSSL", "SSL", "SOCKS", "PROXY", "UNIX-CONNECT"} {
				if strings.HasPrefix(u, p) {
					net = true
				}
			}
		}
		if exec && net {
			return "runs a program on a network connection (socat EXEC)"
		}
		return ""
	}
	if hasOpt(argv, "ec", "exec", "sh-exec", "lua-exec") {
		return "runs a program on a network connection (" + name + " -e)"
	}
	return ""
}

// forkLoop reports whether interpreter code forks inside a loop (python -c
// 'while 1: os.fork()', perl -e 'fork while 1', ruby -e 'loop { fork }').
func forkLoop(code string) bool {
	if !strings.Contains(code, "fork") {
		return false
	}
	fork, loop := false, false
	for _, t := range strings.FieldsFunc(code, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		switch t {
		case "fork", "forkpty", "fork_exec":
			fork = true
		case "while", "for", "loop", "until", "repeat", "times", "each", "goto":
			loop = true
		}
	}
	return fork && loop
}

func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "wget2", "fetch", "http", "https", "xh", "xhs", "curlie", "aria2c", "lwp-request", "get", "lynx", "links", "w3m":
		return true
	}
	return false
}

// isCodeSource reports whether a command's output is content the guard
// cannot see that came from the network (a downloader, nc, socat, ssh) or
// from a decoder (base64 -d, gunzip, openssl enc -d, …). A shell or
// interpreter fed such output is floor.
func isCodeSource(argv []word) bool {
	name := strings.ToLower(cmdName(argv[0]))
	switch name {
	case "":
		return false
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "s_client":
		return true
	case "openssl":
		if len(argv) > 1 && argv[1].val == "s_client" {
			return true
		}
	}
	if isDownloader(name) {
		return true
	}
	if !isDecoderName(name) {
		return false
	}
	vals := make([]string, len(argv))
	for i, a := range argv {
		vals[i] = a.val
	}
	return decoderKind(vals) != ""
}

// isDecoderName: programs decoderKind knows.
func isDecoderName(name string) bool {
	switch name {
	case "base64", "gbase64", "base32", "basenc", "xxd", "gunzip", "zcat", "gzcat", "gzip", "pigz", "bunzip2", "bzcat", "bzip2",
		"unxz", "xzcat", "lzcat", "unlzma", "unzstd", "zstdcat", "uncompress", "uudecode", "lz4cat", "unlz4", "brotli", "xz",
		"lzma", "zstd", "lz4", "openssl", "gpg", "gpg2", "age", "rage", "rot13":
		return true
	}
	return false
}

// noteDownload records the files a downloading command writes (curl -o f,
// curl -O URL, wget URL, wget -O f, -P dir, git clone URL dir, a
// redirection of its output), so running one later in the same command is
// floor.
func (w *walker) noteDownload(argv []word, name string, write, cwd string) {
	add := func(p string) {
		if p == "" || p == "-" || p == "/dev/stdout" {
			return
		}
		if r := resolveIn(p, cwd); r != "" {
			p = r
		} else {
			p = path.Clean(p)
		}
		w.dlFiles = append(w.dlFiles, p)
	}
	if write != "" {
		add(write)
	}
	urlBase := func(u string) string {
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		if i := strings.Index(u, "://"); i >= 0 {
			u = u[i+3:]
		}
		u = strings.TrimRight(u, "/")
		if i := strings.LastIndexByte(u, '/'); i >= 0 {
			return u[i+1:]
		}
		return ""
	}
	switch name {
	case "git":
		i := gitSubcommand(argv)
		if i <= 0 || argv[i].val != "clone" {
			return
		}
		var pos []string
		for j := i + 1; j < len(argv); j++ {
			v := argv[j].val
			switch {
			case v == "-b" || v == "--branch" || v == "-o" || v == "--origin" || v == "-c" || v == "--config" || v == "--depth" || v == "-u" || v == "--upload-pack" || v == "-j" || v == "--jobs" || v == "--reference" || v == "--template" || v == "--separate-git-dir" || v == "--filter":
				j++
			case strings.HasPrefix(v, "-"):
			default:
				pos = append(pos, v)
			}
		}
		switch {
		case len(pos) >= 2:
			add(pos[1])
		case len(pos) == 1:
			add(strings.TrimSuffix(urlBase(pos[0]), ".git"))
		}
		return
	case "curl", "wget", "wget2", "fetch", "aria2c":
	default:
		return
	}
	var urls []string
	remoteName := name == "wget" || name == "wget2"
	dir := ""
	named := false
	for j := 1; j < len(argv); j++ {
		v := argv[j].val
		next := func() string {
			if j+1 < len(argv) {
				j++
				return argv[j].val
			}
			return ""
		}
		switch {
		case v == "--output" || v == "--output-document" || (v == "-o" && name != "wget") || (v == "-O" && name == "wget"):
			add(next())
			named = true
		case strings.HasPrefix(v, "--output=") || strings.HasPrefix(v, "--output-document="):
			_, f, _ := strings.Cut(v, "=")
			add(f)
			named = true
		case v == "-P" || v == "--directory-prefix" || v == "--output-dir" || v == "-d" && name == "aria2c" || v == "--dir":
			dir = next()
		case strings.HasPrefix(v, "--directory-prefix=") || strings.HasPrefix(v, "--output-dir="):
			_, dir, _ = strings.Cut(v, "=")
		case v == "--remote-name" || v == "--remote-name-all":
			remoteName = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1:
			for k := 1; k < len(v); k++ {
				c := v[k]
				if name == "curl" && c == 'O' {
					remoteName = true
				}
				if c == 'o' && name != "wget" || c == 'O' && name == "wget" {
					if k+1 < len(v) {
						add(v[k+1:])
					} else {
						add(next())
					}
					named = true
					break
				}
				if name == "curl" && strings.IndexByte("HAeuxXwrEKbcmCyYzUQdFT", c) >= 0 || name == "wget" && strings.IndexByte("aodeiPTtUwQlADIRX", c) >= 0 {
					if k == len(v)-1 {
						next()
					}
					break
				}
			}
		case strings.Contains(v, "://") || !strings.HasPrefix(v, "-") && strings.Contains(v, "/"):
			urls = append(urls, v)
		}
	}
	if remoteName && !named {
		for _, u := range urls {
			b := urlBase(u)
			if b == "" {
				b = "index.html"
			}
			if dir != "" {
				b = dir + "/" + b
			}
			add(b)
		}
	}
}

// runsDownloaded names the file a command runs that an earlier segment of
// the same command downloaded: ./f, sh f, python f, source f.
func (w *walker) runsDownloaded(argv []word, name, cwd string) string {
	if len(w.dlFiles) == 0 {
		return ""
	}
	check := func(a word) string {
		if !a.known || a.val == "" {
			return ""
		}
		r := resolveIn(a.val, cwd)
		if r == "" {
			r = path.Clean(a.val)
		}
		for _, d := range w.dlFiles {
			if r == d || strings.HasPrefix(r, d+"/") {
				return a.text
			}
		}
		return ""
	}
	if strings.IndexByte(argv[0].val, '/') >= 0 {
		if f := check(argv[0]); f != "" {
			return f
		}
	}
	switch {
	case isShell(name):
		if sa := shellArgs(argv); sa.script > 0 {
			return check(argv[sa.script])
		}
	case isInterpreter(name):
		if i := interpreterScript(argv); i > 0 {
			return check(argv[i])
		}
	case name == "source" || name == ".":
		if len(argv) > 1 {
			return check(argv[1])
		}
	}
	return ""
}

// isDownloaded reports whether p (a redirection's target) is a file
// downloaded earlier in the command.
func (w *walker) isDownloaded(p string) bool {
	for _, d := range w.dlFiles {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// noteSource records a segment whose output is unseen code (a download, a
// network connection, a decoder) and the files a download writes.
func (w *walker) noteSource(argv []word, x ctx, in segIn, write, cwd string) {
	name := strings.ToLower(cmdName(argv[0]))
	if in.net || isCodeSource(argv) {
		w.dls = append(w.dls, len(w.res.Segments)-1)
	}
	if !in.net && (name == "echo" || name == "printf" || name == "cat" || name == "tac") {
		for _, a := range argv[1:] {
			if a.dl || name == "cat" && a.known && w.isDownloaded(resolveIn(a.val, cwd)) {
				w.dls = append(w.dls, len(w.res.Segments)-1)
				break
			}
		}
	}
	if name == "find" {
		if d, _ := w.findProtected(argv, cwd); d != "" {
			w.findTree, w.findSeg = d, len(w.res.Segments)-1
		}
	}
	if name == "tar" || name == "bsdtar" || name == "unzip" || name == "7z" || name == "cpio" {
		w.noteExtract(argv, name, x, cwd)
	}
	switch {
	case isDownloader(name):
		w.noteDownload(argv, name, write, cwd)
	case name == "git":
		if i := gitSubcommand(argv); i > 0 && i < len(argv) {
			switch argv[i].val {
			case "clone":
				w.noteDownload(argv, name, write, cwd)
			case "archive":
				for _, a := range argv[i:] {
					if strings.HasPrefix(a.val, "--remote") {
						w.dls = append(w.dls, len(w.res.Segments)-1)
						break
					}
				}
			}
		}
	case x.stdinDL && name == "tee":
		w.noteDownload(nil, "", write, cwd)
		for _, a := range argv[1:] {
			if a.known && !strings.HasPrefix(a.val, "-") {
				w.noteDownload(nil, "", a.val, cwd)
			}
		}
	case x.stdinDL && write != "":
		w.noteDownload(nil, "", write, cwd)
	}
}

// downloaderArgs reports whether a command's literal words name a
// downloader (curl x > >(sh)): a cheap look before the words are evaluated.
func downloaderArgs(ws []*syntax.Word) bool {
	// The command word, after any wrappers and their options.
	for _, wd := range ws {
		if len(wd.Parts) != 1 {
			return false
		}
		l, ok := wd.Parts[0].(*syntax.Lit)
		if !ok {
			return false
		}
		n := base(l.Value)
		if isDownloader(n) || isDownloader(strings.ToLower(n)) {
			return true
		}
		if _, wrap := wrapSpecs[n]; !wrap && !strings.HasPrefix(n, "-") && strings.IndexByte(n, '=') < 0 {
			return false
		}
	}
	return false
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

// stdinCode: a program reading a download on stdin that runs what it reads
// (awk '{system($0)}', perl -ne 'system $_', python -c 'exec(sys.stdin…)').
func stdinCode(name string, argv []word) string {
	prog := ""
	for _, a := range argv[1:] {
		if a.known && !strings.HasPrefix(a.val, "-") {
			prog = a.val
			break
		}
	}
	switch name {
	case "awk", "gawk", "mawk", "nawk", "busybox":
		if strings.Contains(prog, "system(") || strings.Contains(prog, "system (") || strings.Contains(prog, "| getline") || strings.Contains(prog, `| "sh`) || strings.Contains(prog, `| "bash`) {
			return "runs the lines of a download or decoder output as commands (awk system)"
		}
	case "sed", "gsed":
		for _, a := range argv[1:] {
			if a.known && (strings.HasSuffix(a.val, "/e") || strings.HasPrefix(a.val, "e ") || a.val == "e") {
				return "runs a download or decoder output as commands (sed e)"
			}
		}
	}
	if isInterpreter(name) {
		for _, a := range argv[1:] {
			if !a.known {
				continue
			}
			c := a.val
			run := strings.Contains(c, "exec(") || strings.Contains(c, "eval(") || strings.Contains(c, "eval ") || strings.Contains(c, "system(") || strings.Contains(c, "system ") ||
				strings.Contains(c, "popen") || strings.Contains(c, "subprocess") || strings.Contains(c, "`$_`") || strings.Contains(c, "child_process")
			reads := strings.Contains(c, "stdin") || strings.Contains(c, "STDIN") || strings.Contains(c, "$_") || strings.Contains(c, "<>") || strings.Contains(c, "gets") || strings.Contains(c, "input(") || strings.Contains(c, "readline") || strings.Contains(c, "ARGF")
			if run && reads {
				return "runs code read from a download or decoder"
			}
		}
	}
	return ""
}

// noteExtract: an archive that is a download (curl … | tar x, tar xf f
// after curl -o f) unpacks files the guard cannot see: its target
// directory counts as downloaded.
func (w *walker) noteExtract(argv []word, name string, x ctx, cwd string) {
	from := x.stdinDL
	dir := ""
	extract := name == "unzip"
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		if i == 1 && name != "unzip" && !strings.HasPrefix(v, "-") && strings.ContainsAny(v, "x") {
			extract = true
		}
		switch {
		case v == "-x" || v == "--extract" || v == "--get" || name == "7z" && v == "x" || name == "cpio" && (v == "-i" || v == "--extract"):
			extract = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'x') && name != "unzip":
			extract = true
		}
		if (v == "-C" || v == "--directory" || name == "unzip" && v == "-d") && i+1 < len(argv) {
			dir = argv[i+1].val
		}
		if argv[i].known && !strings.HasPrefix(v, "-") && w.isDownloaded(resolveIn(v, cwd)) {
			from = true
		}
	}
	if !extract || !from {
		return
	}
	if dir == "" {
		dir = "."
	}
	w.noteDownload(nil, "", dir, cwd)
}

// interpreterFloor checks interpreter one-liners for the floor: shell
// commands they pass to system/popen/subprocess/backticks are classified as
// scripts (python -c 'import os; os.system("rm -rf /")'), and a recursive
// delete of a literal protected path is rm-root (shutil.rmtree("/"),
// FileUtils.rm_rf("/"), fs.rmSync("/", {recursive: true}), rmtree("/")).
func (w *walker) interpreterFloor(argv []word, cwd string) (string, string) {
	for _, a := range argv[1:] {
		if !a.known || !strings.ContainsAny(a.val, `"'`+"`") {
			continue
		}
		code := a.val
		if fetchesAndRuns(code) {
			return ShapePipeToShell, "downloads code and runs it (a network fetch inside exec/eval)"
		}
		for _, call := range []string{"system", "popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
			"subprocess.check_output", "subprocess.Popen", "getoutput", "getstatusoutput", "execSync", "exec", "spawnSync", "shell_exec", "passthru", "qx", "`"} {
			for _, lit := range callStrings(code, call) {
				if r := w.c.Classify(lit, cwd); r.Verdict == Floor {
					for _, s := range r.Segments {
						if s.Verdict == Floor {
							return s.Shape, "runs the shell command " + quote(lit) + ", which is floor"
						}
					}
				}
			}
		}
		for _, call := range []string{"rmtree", "rm_rf", "rm_r", "remove_dir_all", "rmSync", "rmdirSync", "remove_tree", "RemoveAll", "removedirs"} {
			for _, lit := range callStrings(code, call) {
				if d := w.protectedTarget(word{val: lit, text: lit, known: true}, cwd); d != "" {
					return ShapeRmRoot, "removes " + d + " (" + call + ")"
				}
				if lit == "~" || strings.HasPrefix(lit, "~/") {
					if d := w.protectedTarget(word{val: w.c.home + lit[1:], known: true}, cwd); d != "" {
						return ShapeRmRoot, "removes " + d + " (" + call + ")"
					}
				}
			}
		}
	}
	return "", ""
}

// callStrings returns the first string literal argument of each call to
// name in code (name("x"), name 'x', `x` for the backtick operator).
func callStrings(code, name string) []string {
	var out []string
	for i := 0; i < len(code); {
		j := strings.Index(code[i:], name)
		if j < 0 {
			break
		}
		k := i + j + len(name)
		i = k
		if name == "`" {
			if e := strings.IndexByte(code[k:], '`'); e > 0 {
				out = append(out, code[k:k+e])
				i = k + e + 1
			}
			continue
		}
		if j > 0 && isWordByte(code[i-len(name)-1]) && code[i-len(name)-1] != '.' {
			continue // part of a longer name
		}
		for k < len(code) && (code[k] == ' ' || code[k] == '(' || code[k] == '[' || code[k] == '{') {
			k++
		}
		if k < len(code) && (code[k] == '"' || code[k] == '\'') {
			q := code[k]
			if e := strings.IndexByte(code[k+1:], q); e >= 0 {
				out = append(out, code[k+1:k+1+e])
			}
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// execWrapper: programs that run a command given in their arguments and
// that peel does not take apart.
func execWrapper(name string) bool {
	if runArgv[name] {
		return true
	}
	switch name {
	case "chroot", "runuser", "flock", "chrt", "taskset", "strace", "ltrace", "nsenter", "unshare", "fakeroot", "firejail",
		"torsocks", "proxychains", "proxychains4", "systemd-run", "setpriv", "numactl", "prlimit", "catchsegv", "valgrind",
		"caffeinate", "sg", "newgrp", "sandbox-exec", "bwrap", "faketime", "cpulimit", "trickle", "rlwrap", "entr", "chpst", "pkexec":
		return true
	}
	return false
}

func joinVals(a []word) string {
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.val)
	}
	return b.String()
}

// hasWord reports a known word equal to v.
func hasWord(a []word, v string) bool {
	for _, x := range a {
		if x.known && x.val == v {
			return true
		}
	}
	return false
}

// fetchMarkers are the one-liner ways interpreters fetch a URL; runMarkers
// the ways they run text as code. Code that does both downloads and runs
// (python -c 'exec(urlopen(…).read())', perl -e 'eval get(…)').
var fetchMarkers = []string{"urlopen", "urllib", "requests.get", "http.client", "httpx.", "LWP::", "get(\"http", "get('http",
	"open-uri", "URI.open", "URI.parse", "Net::HTTP", "https.get", "http.get", "fetch(", "axios", "file_get_contents(\"http", "file_get_contents('http",
	"curl_exec", "Invoke-WebRequest", "DownloadString", "iwr ", "irm ", "wget", "curl "}

var runMarkers = []string{"exec(", "eval)", "exec ", "eval(", "eval ", "system(", "system ", "Function(", "popen", "subprocess", "child_process", "execSync", "spawn", "`", "iex", "Invoke-Expression", "instance_eval", "load("}

func fetchesAndRuns(code string) bool {
	fetch := false
	for _, m := range fetchMarkers {
		if strings.Contains(code, m) {
			fetch = true
			break
		}
	}
	if !fetch {
		return false
	}
	for _, m := range runMarkers {
		if strings.Contains(code, m) {
			return true
		}
	}
	return false
}
