package jev

import (
	"regexp"
	"strings"
	"sync"
)

// awkBound: an awk program is eligible only when it cannot run a command
// or write a file: no system(), no pipe (| "cmd", "cmd" | getline), no
// getline at all, no output redirection (> or >> after print/printf; any
// ">" when the program prints), no @load/@include, no indirect call
// (@name(): the name is a string, "system" among them), no program file
// (-f), no extension (-l, -i, -E), no option that writes a file or reads
// debugger commands (gawk -d, -p, -o, -D), and -W only for a version,
// help or compatibility mode. Anything else it cannot be sure of fails
// closed.
func awkBound(name string, args []string) string {
	prog, found := "", false
	for i := 0; i < len(args) && !found; i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				prog, found = args[i+1], true
			}
			if !found {
				return ""
			}
		case strings.HasPrefix(a, "--"):
			n, _, eq := strings.Cut(a, "=")
			if abbreviates(n, awkRunsLong) {
				return "runs an awk program from a file or an extension, or writes a file (" + name + " " + n + ")"
			}
			if !eq && abbreviates(n, []string{"--assign", "--field-separator"}) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			var why string
			i, why = awkShort(name, args, i)
			if why != "" {
				return why
			}
		default:
			prog, found = a, true
		}
	}
	if !found {
		return ""
	}
	p := strings.ToLower(prog)
	for _, bad := range []string{"system", "|", "getline", "@load", "@include", "@namespace", "close", "fflush", "printf >", "print >"} {
		if strings.Contains(p, bad) {
			return "runs commands or writes files from an awk program (" + name + ": " + bad + ")"
		}
	}
	if awkIndirect().MatchString(p) {
		return "calls a function by name from an awk program (" + name + ": @name()), which can be system"
	}
	if strings.Contains(p, ">") && strings.Contains(p, "print") {
		return "may write files from an awk program (" + name + ": print … >)"
	}
	return ""
}

// awkRunsLong are gawk's long options that read a program or extension
// from a file, write a file, or read debugger commands.
var awkRunsLong = []string{"--file", "--include", "--load", "--exec", "--source", "--dump-variables", "--profile",
	"--pretty-print", "--debug"}

// awkIndirect matches gawk's indirect function call, @name(...).
var awkIndirect = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@[a-z_][a-z0-9_:]*\s*\(`) })

// awkShort reads the short option cluster args[i] and returns the index
// of its last argument and why it is held, or "".
func awkShort(name string, args []string, i int) (int, string) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		switch c := a[j]; c {
		case 'F', 'v':
			if j+1 == len(a) {
				i++
			}
			return i, ""
		case 'W':
			v := a[j+1:]
			if v == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			switch strings.TrimLeft(v, "-") {
			case "version", "v", "help", "usage", "posix", "traditional", "compat", "sandbox", "re-interval", "characters-as-bytes":
				return i, ""
			}
			return i, "runs or writes with an awk -W option the checks do not read (" + name + " -W " + v + ")"
		case 'f', 'i', 'l', 'E', 'e', 'd', 'p', 'o', 'D':
			return i, "runs an awk program from a file or an extension, or writes a file (" + name + " -" + string(c) + ")"
		}
	}
	return i, ""
}

// sedBound: a sed script is eligible only when it has no e (run a
// command), w/W (write a file), r/R (read a file the checks do not see)
// command and no e or w flag of s///; a script from a file (-f) or one the
// parser below cannot read fails closed. In-place editing (-i) of a file
// inside the project is left to the advisor (outside paths are refused
// before).
func sedBound(args []string) string {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if !explicit && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			i = len(args)
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts, explicit = append(scripts, args[i+1]), true
				i++
			}
		case strings.HasPrefix(a, "--expression="):
			scripts, explicit = append(scripts, a[len("--expression="):]), true
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "runs a sed script from a file (sed " + a + ")"
		case a == "-l" || a == "--line-length":
			i++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster: -ne 'script', -i.bak, -nf file.
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'i' {
					break // -i takes the rest as its suffix
				}
				if c == 'f' {
					return "runs a sed script from a file (sed " + a + ")"
				}
				if c == 'l' {
					if j+1 == len(a) {
						i++
					}
					break
				}
				if c == 'e' {
					if j+1 < len(a) {
						scripts = append(scripts, a[j+1:])
					} else if i+1 < len(args) {
						scripts = append(scripts, args[i+1])
						i++
					}
					explicit = true
					break
				}
			}
		default:
			if !explicit {
				scripts, explicit = append(scripts, a), true
			}
		}
	}
	for _, s := range scripts {
		if why := sedScript(s); why != "" {
			return why
		}
	}
	return ""
}

// sedScript parses one sed script far enough to find the commands and
// flags that run, write or read: e, w, W, r, R, s///e, s///w. What it
// cannot parse fails closed.
func sedScript(s string) string {
	const cannot = "has a sed script the checks cannot read"
	i := 0
	skipBlank := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	// part reads up to the unescaped delimiter d.
	part := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case d:
				i++
				return true
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			i++
			if !part('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !part(d) {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	for i < len(s) {
		skipBlank()
		if i >= len(s) {
			break
		}
		switch s[i] {
		case ';', '\n', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		if !address() {
			return cannot
		}
		skipBlank()
		if i < len(s) && s[i] == ',' {
			i++
			skipBlank()
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return cannot
			}
			skipBlank()
		}
		for i < len(s) && (s[i] == '!' || s[i] == ' ') {
			i++
		}
		if i >= len(s) {
			return cannot
		}
		c := s[i]
		i++
		switch c {
		case '{':
		case 'e', 'w', 'W', 'r', 'R':
			return "runs a command or writes or reads a file from a sed script (sed " + string(c) + ")"
		case 's', 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return cannot
			}
			d := s[i]
			i++
			if !part(d) || !part(d) {
				return cannot
			}
			if c == 'y' {
				break
			}
			for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
			if i < len(s) && (s[i] == 'e' || s[i] == 'w') {
				return "runs a command or writes a file from a sed script (s///" + string(s[i]) + ")"
			}
		case 'a', 'i', 'c':
			toEOL()
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'l', 'L', 'q', 'Q':
			skipBlank()
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 'v':
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				i++
			}
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return cannot
		}
		skipBlank()
		if i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != '#' {
			return cannot
		}
	}
	return ""
}

// commandOption says why a program that is not a launcher still runs a
// command its arguments name (fd -x, rg --pre, sort --compress-program,
// split --filter, man -P), or removes files (gio remove), or "".
func commandOption(name string, args []string) string {
	runs := false
	switch name {
	case "fd", "fdfind":
		runs = hasFlag(args, "xX", "--exec", "--exec-batch")
	case "rg", "ripgrep":
		runs = hasFlag(args, "", "--pre")
	case "sort":
		runs = hasFlag(args, "", "--compress-program")
	case "gpg", "gpg2":
		runs = hasFlag(args, "", "--exec-path", "--photo-viewer")
	case "split":
		runs = hasFlag(args, "", "--filter")
	case "man":
		runs = hasFlag(args, "PH", "--pager", "--html")
	case "gio":
		switch firstOperand(args) {
		case "remove", "rm", "trash", "move", "mv", "copy", "cp", "save", "set", "rename", "launch", "open", "mount":
			return "removes, replaces or opens files (gio " + firstOperand(args) + ")"
		}
	}
	if runs {
		return "runs a command given in its arguments (" + name + ")"
	}
	return ""
}

// interpreterVariant reports whether name is a build of an interpreter
// family under another name: pythonw, python3.12-dbg, python3.12m,
// php-cgi, php8.2-cli, perl5.36-thread. A -config helper is not one.
func interpreterVariant(name string) bool {
	for _, fam := range []string{"python", "pypy", "ipython", "perl", "ruby", "jruby", "php", "lua", "luajit", "node", "nodejs", "julia", "tclsh", "wish"} {
		rest, ok := strings.CutPrefix(name, fam)
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, "0123456789.")
		switch rest {
		case "", "w", "d", "m", "u", "dm", "_d", "-dbg", "-debug", "-cgi", "-cli", "-fpm", "-thread", "-threaded", "-static":
			return true
		}
	}
	return false
}
