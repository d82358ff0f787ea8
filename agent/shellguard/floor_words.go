package shellguard

// Small readers over a command's words that the floor rules share:
// options, the program a wrapper execs, joined values.

import "strings"

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
