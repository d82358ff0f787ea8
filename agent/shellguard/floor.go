package shellguard

import (
	"path"
	"strings"
)

// floor checks a peeled command against the dangerous floor. It returns the
// shape and the reason's tail ("removes the filesystem root"), or "".
func (w *walker) floor(argv []word, x ctx, p peeled, cwd string) (string, string) {
	if len(argv) == 0 {
		return "", ""
	}
	if s, why := w.floorCmd(argv, cwd); s != "" {
		return s, why
	}
	if x.stdinDL && len(argv) > 0 {
		if n := strings.ToLower(cmdName(argv[0])); (isShell(n) || isInterpreter(n)) && readsProgramFromStdin(argv) {
			return ShapePipeToShell, "runs a script piped from a download"
		}
	}
	if p.uncertain {
		// A wrapper option we do not know may have taken the next word as
		// its value: try every later word as the command.
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
	switch {
	case name == "":
		return "", ""
	case name == "rm":
		if why := w.rmRoot(argv, cwd); why != "" {
			return ShapeRmRoot, why
		}
	case name == "git":
		if why := gitForcePush(argv); why != "" {
			return ShapeGitForcePush, why
		}
	case name == "dd":
		for _, a := range argv[1:] {
			if a.known && strings.HasPrefix(a.val, "of=") {
				if t := resolveIn(a.val[3:], cwd); t != "" && isDevice(t) {
					return ShapeDDDevice, "writes raw data onto device " + t
				}
			}
		}
	case name == "chmod":
		if why := w.chmodRoot(argv, cwd); why != "" {
			return ShapeChmod777Root, why
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs" || name == "mkdosfs" || name == "mkntfs":
		return ShapeMkfs, "formats or wipes a filesystem"
	case name == "tee" || name == "cp":
		ops := argv[1:]
		if name == "cp" && len(ops) > 0 {
			ops = ops[len(ops)-1:]
		}
		for _, a := range ops {
			if a.known && !strings.HasPrefix(a.val, "-") {
				if t := resolveIn(a.val, cwd); t != "" && isDevice(t) {
					return ShapeDeviceWrite, "writes onto device " + t
				}
			}
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
				n, _, _ := strings.Cut(a.val[2:], "=")
				if n != "" && strings.HasPrefix("recursive", n) {
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
			continue
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

// protectedTarget describes a that names a protected directory (or
// everything under one, via a glob), "" otherwise.
func (w *walker) protectedTarget(a word, cwd string) string {
	v := a.val
	if v == "" {
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

// gitForcePush: git [global options] push with -f, --force,
// --force-with-lease, --force-if-includes, --mirror or a +refspec.
func gitForcePush(argv []word) string {
	i := gitSubcommand(argv)
	if i <= 0 || i >= len(argv) || argv[i].val != "push" {
		return ""
	}
	for _, a := range argv[i+1:] {
		if !a.known {
			continue
		}
		v := a.val
		switch {
		case v == "--":
			continue
		case strings.HasPrefix(v, "--"):
			n, _, _ := strings.Cut(v, "=")
			switch n {
			case "--force", "--force-with-lease", "--force-if-includes", "--mirror":
				return "force-pushes (" + n + " rewrites the remote's history)"
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				if v[j] == 'o' {
					break // push option value follows
				}
				if v[j] == 'f' {
					return "force-pushes (" + v + " rewrites the remote's history)"
				}
			}
		case strings.HasPrefix(v, "+"):
			return "force-pushes (the +refspec " + v + " rewrites the remote's history)"
		}
	}
	return ""
}

// gitSubcommand returns the index of git's subcommand after its global
// options, or -1.
func gitSubcommand(argv []word) int {
	i := 1
	for i < len(argv) {
		if !argv[i].known {
			return -1
		}
		v := argv[i].val
		switch {
		case v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--config-env" || v == "--super-prefix":
			i += 2
		case strings.HasPrefix(v, "-"):
			i++
		default:
			return i
		}
	}
	return -1
}

// chmodRoot: chmod -R granting write to others (777, a+rwx, o+w) on a
// protected directory.
func (w *walker) chmodRoot(argv []word, cwd string) string {
	recursive := false
	mode := ""
	var ops []word
	for _, a := range argv[1:] {
		if !a.known {
			continue
		}
		v := a.val
		if strings.HasPrefix(v, "--") {
			if v == "--recursive" {
				recursive = true
			}
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 && mode == "" && strings.Trim(v[1:], "RvcfHLP") == "" {
			if strings.ContainsRune(v, 'R') {
				recursive = true
			}
			continue
		}
		if mode == "" {
			mode = v
			continue
		}
		ops = append(ops, a)
	}
	if !recursive || !worldWritable(mode) {
		return ""
	}
	for _, a := range ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			return "makes " + d + " world-writable, recursively"
		}
	}
	return ""
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

func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "http", "https", "xh", "xhs", "curlie", "aria2c", "lwp-request", "GET":
		return true
	}
	return false
}
