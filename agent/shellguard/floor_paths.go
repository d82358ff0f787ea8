package shellguard

// The paths the floor protects and how a word resolves to one.

import (
	"path"
	"strings"
)

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
