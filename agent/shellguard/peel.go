package shellguard

import (
	"strings"
)

// peeled is a command with its wrappers removed.
type peeled struct {
	argv      []word
	wrappers  []string    // "sudo -u root", "timeout 5"
	layers    []string    // argv text before each peel, for deny rules
	danger    string      // an environment assignment that changes what runs
	uncertain bool        // a wrapper flag we do not know: the command may be elsewhere
	elevated  bool        // sudo, doas, su
	xargs     bool        // arguments come from stdin
	xargsRepl string      // xargs -I replacement string
	cwd       string      // env -C / sudo -D directory for this command
	write     string      // a file a wrapper writes (time -o)
	lookup    bool        // command -v: a lookup, not a run
	clearsEnv bool        // env -i/-u/-, exec -c, command -p: the environment or PATH is not the child's
	envs      []prefixVar // NAME=value a wrapper (env, sudo) gives the command, with known values
	line      string      // a wrapper option that runs the command words with a shell (sudo -s)
}

// wrapSpec describes a wrapper's options.
type wrapSpec struct {
	shortArg  string // short options taking a value
	shortBool string // short options without a value
	shortOpt  string // short options whose value, if any, is attached (-i{})
	longArg   []string
	longBool  []string
	assigns   bool // NAME=value words before the command (sudo, env)
	skip      int  // positional words before the command (timeout DURATION)
	numOpt    bool // nice -10
}

var wrapSpecs = map[string]*wrapSpec{
	"sudo": {shortArg: "ugCDhprtTUc", shortBool: "AbEeHiKklnPSsVvB", assigns: true,
		longArg:  []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user", "login-class"},
		longBool: []string{"askpass", "background", "bell", "preserve-env", "edit", "set-home", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell", "version", "validate", "help"}},
	"doas":    {shortArg: "uC", shortBool: "nsL"},
	"env":     {shortArg: "uCSP", shortBool: "i0v", assigns: true, longArg: []string{"unset", "chdir", "split-string"}, longBool: []string{"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"}},
	"nice":    {shortArg: "n", numOpt: true, longArg: []string{"adjustment"}},
	"timeout": {shortArg: "sk", shortBool: "v", skip: 1, longArg: []string{"signal", "kill-after"}, longBool: []string{"preserve-status", "foreground", "verbose"}},
	"nohup":   {},
	"stdbuf":  {shortArg: "ioe", longArg: []string{"input", "output", "error"}},
	"ionice":  {shortArg: "cnpPu", shortBool: "t", longArg: []string{"class", "classdata", "pid", "pgid", "uid"}, longBool: []string{"ignore"}},
	"xargs": {shortArg: "adEILnPs", shortBool: "0oprtx", shortOpt: "eil",
		longArg:  []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		longBool: []string{"null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit", "show-limits", "eof", "replace", "max-lines"}},
	"command":  {shortBool: "pvV"},
	"exec":     {shortArg: "a", shortBool: "cl"},
	"time":     {shortArg: "fo", shortBool: "apqv", longArg: []string{"format", "output"}, longBool: []string{"append", "portability", "quiet", "verbose"}},
	"setsid":   {shortBool: "cfw", longBool: []string{"ctty", "fork", "wait"}},
	"unbuffer": {shortBool: "p"},
	"busybox":  {},
	"builtin":  {},
}

// opt is one parsed wrapper option.
type opt struct {
	name string // "u", "user"
	val  word
	has  bool
}

// parseOpts parses a wrapper's options from a[1:]. It returns the index of
// the first word after the options, the options, and whether an unknown
// option (or a value we cannot see) made the split uncertain.
func parseOpts(a []word, s *wrapSpec) (int, []opt, []int, bool) {
	var opts []opt
	var assigns []int
	uncertain := false
	i := 1
	for i < len(a) {
		if !a[i].known {
			if strings.HasPrefix(a[i].text, "-") || strings.HasPrefix(a[i].text, `"-`) {
				uncertain = true
				i++
				continue
			}
			break
		}
		v := a[i].val
		if v == "--" {
			i++
			break
		}
		if v == "-" && s == wrapSpecs["env"] {
			i++
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if strings.HasPrefix(v, "--") {
			var unc bool
			i, opts, unc = wrapLong(a, i, s, opts)
			uncertain = uncertain || unc
			continue
		}
		if s.numOpt && v[1] >= '0' && v[1] <= '9' {
			i++
			continue
		}
		i++
		var unc bool
		i, opts, unc = wrapShort(a, i, v, s, opts)
		uncertain = uncertain || unc
	}
	if s.assigns {
		for i < len(a) && a[i].known && isAssignWord(a[i].val) {
			assigns = append(assigns, i)
			i++
		}
	}
	for k := 0; k < s.skip && i < len(a); k++ {
		i++
	}
	return i, opts, assigns, uncertain
}

// wrapLong reads the wrapper's long option at a[i] (a unique prefix names
// it, as getopt_long); it returns the next index, opts with the option,
// and whether the option is unknown.
func wrapLong(a []word, i int, s *wrapSpec, opts []opt) (int, []opt, bool) {
	name, val, eq := strings.Cut(a[i].val[2:], "=")
	name = longPrefix(s, name) // getopt_long: a unique prefix is the option
	switch {
	case contains(s.longArg, name):
		if eq {
			opts = append(opts, opt{name: name, val: word{val: val, text: val, lit: true, known: true}, has: true})
			i++
		} else if i+1 < len(a) {
			opts = append(opts, opt{name: name, val: a[i+1], has: true})
			i += 2
		} else {
			i++
		}
	case contains(s.longBool, name):
		opts = append(opts, opt{name: name})
		i++
	default:
		return i + 1, opts, true
	}
	return i, opts, false
}

// wrapShort reads the cluster of short options v (a[i-1]); i is the next
// word, which a last option with a value takes.
func wrapShort(a []word, i int, v string, s *wrapSpec, opts []opt) (int, []opt, bool) {
	uncertain := false
	for j := 1; j < len(v); j++ {
		c := v[j]
		switch {
		case strings.IndexByte(s.shortArg, c) >= 0:
			if j+1 < len(v) {
				rest := v[j+1:]
				opts = append(opts, opt{name: string(c), val: word{val: rest, text: rest, lit: true, known: true}, has: true})
			} else if i < len(a) {
				opts = append(opts, opt{name: string(c), val: a[i], has: true})
				i++
			}
			j = len(v)
		case strings.IndexByte(s.shortOpt, c) >= 0:
			opts = append(opts, opt{name: string(c)})
			j = len(v)
		case strings.IndexByte(s.shortBool, c) >= 0:
			opts = append(opts, opt{name: string(c)})
		default:
			uncertain = true
		}
	}
	return i, opts, uncertain
}

// longPrefix resolves a unique prefix of one of s's long options (the
// wrappers parse with getopt_long); an exact or unknown name is returned
// unchanged, an ambiguous one as "" (unknown).
func longPrefix(s *wrapSpec, n string) string {
	if n == "" || contains(s.longArg, n) || contains(s.longBool, n) {
		return n
	}
	found := ""
	for _, l := range [2][]string{s.longArg, s.longBool} {
		for _, x := range l {
			if strings.HasPrefix(x, n) {
				if found != "" {
					return ""
				}
				found = x
			}
		}
	}
	if found == "" {
		return n
	}
	return found
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// isAssignWord reports whether s is NAME=value.
func isAssignWord(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func base(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// cmdName is the base name of a known command word, "" otherwise.
func cmdName(a word) string {
	if !a.known {
		return ""
	}
	return base(a.val)
}

func joinText(a []word) string {
	switch len(a) {
	case 0:
		return ""
	case 1:
		return a[0].text
	}
	n := len(a) - 1
	for _, x := range a {
		n += len(x.text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, x := range a {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.text)
	}
	return b.String()
}

// peelStops are the wrapper options after which the wrapper runs no
// command (sudo -l, command -v, ionice -p PID): the wrapper is the command.
var peelStops = map[string]bool{"sudo e": true, "sudo edit": true, "sudo l": true, "sudo list": true, "sudo v": true,
	"sudo validate": true, "sudo k": true, "sudo K": true, "command v": true, "command V": true, "ionice p": true,
	"ionice P": true, "ionice u": true, "ionice pid": true, "ionice pgid": true, "ionice uid": true}

// peelClearsEnv are the wrapper options that run the command with an empty
// or reduced environment.
var peelClearsEnv = map[string]bool{"env i": true, "env ignore-environment": true, "env u": true, "env unset": true,
	"env P": true, "exec c": true, "command p": true}

// wrapperOpts applies one wrapper's options to p; stop says the wrapper
// runs no command.
func (w *walker) wrapperOpts(p *peeled, name string, opts []opt) (stop bool) {
	for _, o := range opts {
		key := name + " " + o.name
		switch {
		case peelStops[key]:
			stop = true
		case peelClearsEnv[key]:
			p.clearsEnv = true
		case key == "env C" || key == "env chdir" || key == "sudo D" || key == "sudo chdir":
			if o.val.known {
				w.pathArg(o.val.val, true)
				if r := w.resolve(o.val.val); r != "" {
					p.cwd = r
				}
			}
		case key == "xargs I":
			p.xargsRepl = o.val.val
		case key == "xargs a" || key == "xargs arg-file":
			if o.val.known {
				w.pathArg(o.val.val, true)
			}
		case key == "time o" || key == "time output":
			p.write = o.val.text
			if o.val.known {
				w.pathArg(o.val.val, true)
			}
		}
		if name == "xargs" && o.name == "i" {
			p.xargsRepl = "{}"
		}
	}
	return stop
}

// peel removes wrappers from a.
func (w *walker) peel(a []word) peeled {
	p := peeled{argv: a}
	for len(a) > 1 && a[0].known {
		name := base(a[0].val)
		s, ok := wrapSpecs[name]
		if !ok {
			break
		}
		i, opts, assigns, unc := parseOpts(a, s)
		split, hasSplit := w.envSplitString(name, opts, &unc)
		if i >= len(a) && !hasSplit {
			break // the wrapper runs nothing: it is the command (env, sudo -v)
		}
		stop := w.wrapperOpts(&p, name, opts)
		if stop {
			p.lookup = name == "command"
			break
		}
		if name == "env" && envDash(a[1:i]) {
			p.clearsEnv = true
		}
		for _, o := range opts {
			if runFlag(name, o.name) && i < len(a) {
				p.line = name + " -" + o.name
			}
		}
		for _, j := range assigns {
			n, v, _ := strings.Cut(a[j].val, "=")
			if envRunsName(n) {
				p.envs = append(p.envs, prefixVar{n, v})
			}
			if dangerousEnv(n) && p.danger == "" {
				p.danger = n
			}
		}
		if unc {
			p.uncertain = true
		}
		switch name {
		case "sudo", "doas":
			p.elevated = true
		case "xargs":
			p.xargs = true
		}
		p.layers = append(p.layers, joinText(a))
		p.wrappers = append(p.wrappers, joinText(a[:i]))
		a = a[i:]
		if hasSplit {
			// env -S: the split string is env's arguments again.
			a = append(append([]word{{val: "env", text: "env", lit: true, known: true}}, split...), a...)
		}
	}
	p.argv = a
	return p
}

// dangerousEnv reports whether assigning name changes what a command runs
// (loader, interpreter and tool hooks, search paths, pagers and editors).
func dangerousEnv(name string) bool {
	switch name {
	case "PATH", "IFS", "ENV", "BASH_ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE",
		"PAGER", "MANPAGER", "GIT_PAGER", "EDITOR", "VISUAL", "BROWSER", "SHELL", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR",
		"LESSOPEN", "LESSCLOSE", "LESSKEY", "MANOPT", "SSH_ASKPASS", "SUDO_ASKPASS", "TAR_OPTIONS", "RIPGREP_CONFIG_PATH",
		"GREP_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "TMPDIR", "TERMINFO",
		"OPENSSL_CONF", "SSL_CERT_FILE", "CURL_HOME", "WGETRC", "NPM_CONFIG_PREFIX", "GOFLAGS", "CGO_CFLAGS", "CGO_LDFLAGS", "CC", "CXX":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "PYTHON", "NODE_", "PERL", "RUBY", "BASH_FUNC_", "npm_config_", "NPM_CONFIG_", "GEM_", "BUNDLE_", "LUA_", "GCONV_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
