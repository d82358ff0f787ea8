package mcplaunch

import (
	"errors"
	"strings"
)

// options is an interpreter's option table: which options carry code, which
// load code by a name no file digest pins, which take a value.
type options struct {
	code, load, value, file string   // short option letters (file: its value is the script)
	codeLong, loadLong      []string // long options ("--eval")
	valueLong               []string // long options taking the next argument
	noScript                string   // what to do when no file is named
	plusOptions, singleDash bool     // +o style options (shells); -long options (php, java)
}

var (
	python = options{code: "c", load: "m", value: "WXQ", valueLong: []string{"--check-hash-based-pycs"}, noScript: "reads its program from stdin"}
	node   = options{code: "ep", load: "r", value: "C",
		codeLong:  []string{"--eval", "--print"},
		loadLong:  []string{"--require", "--import", "--loader", "--experimental-loader"},
		valueLong: []string{"--title", "--input-type", "--env-file", "--conditions", "--stack-size", "--max-old-space-size", "--inspect-port", "--disable-warning"},
		noScript:  "starts a REPL or reads stdin"}
	ruby  = options{code: "e", load: "rC", value: "IEF", loadLong: []string{"--require"}, noScript: "reads its program from stdin"}
	perl  = options{code: "eE", load: "mMx", value: "I", noScript: "reads its program from stdin"}
	php   = options{code: "rBRE", value: "dcz", file: "fF", noScript: "reads its program from stdin"}
	lua   = options{code: "e", load: "l", noScript: "reads its program from stdin"}
	shell = options{code: "c", load: "s", value: "oO", plusOptions: true,
		valueLong: []string{"--rcfile", "--init-file"}, codeLong: []string{"--command"}, noScript: "reads its commands from stdin"}
)

// interp analyses an interpreter's arguments: the first operand is the
// script; an option that carries code makes the launch Inline; one that
// loads code by name (python -m, node -r) cannot be pinned.
func interp(o options) runner {
	return func(name string, args []string) (Launch, error) {
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				if i+1 < len(args) {
					return script(args[i+1]), nil
				}
				return Launch{}, unpinned(name, "%s: name the script file to run", o.noScript)
			case a == "-":
				return Launch{}, unpinned(name, "- reads the program from stdin: name the script file to run")
			case strings.HasPrefix(a, "--"):
				opt, _, hasValue := strings.Cut(a, "=")
				switch {
				case contains(o.codeLong, opt):
					return Launch{Kind: Inline}, nil
				case contains(o.loadLong, opt):
					return Launch{}, unpinned(name, "%s loads code by a name no file digest pins: run the file itself", opt)
				case contains(o.valueLong, opt) && !hasValue:
					i++
				}
			case strings.HasPrefix(a, "-") || o.plusOptions && strings.HasPrefix(a, "+") && len(a) > 1:
				l, skip, err := o.cluster(name, a)
				if err == errFileNext {
					if i+1 < len(args) {
						return script(args[i+1]), nil
					}
					return Launch{}, unpinned(name, "%s names no file: name the script file to run", a)
				}
				if err != nil || l.Kind != Program {
					return l, err
				}
				i += skip
			default:
				return script(a), nil
			}
		}
		return Launch{}, unpinned(name, "%s: name the script file to run", o.noScript)
	}
}

// cluster reads one short-option argument (python -uc, bash -ex): it
// returns Inline for a code option, an error for a loading one, and how
// many following arguments a value option consumes.
func (o options) cluster(name, a string) (Launch, int, error) {
	for j := 1; j < len(a); j++ {
		c := a[j]
		switch {
		case strings.IndexByte(o.code, c) >= 0:
			return Launch{Kind: Inline}, 0, nil
		case strings.IndexByte(o.load, c) >= 0:
			return Launch{}, 0, unpinned(name, "%s%c loads or runs code that no file digest pins: run the script file itself", a[:1], c)
		case strings.IndexByte(o.file, c) >= 0:
			if j == len(a)-1 {
				return Launch{}, 1, errFileNext
			}
			return script(a[j+1:]), 0, nil
		case strings.IndexByte(o.value, c) >= 0:
			if j == len(a)-1 {
				return Launch{}, 1, nil
			}
			return Launch{}, 0, nil
		}
	}
	return Launch{}, 0, nil
}

// errFileNext: the option's value, the next argument, is the script.
var errFileNext = errors.New("the next argument is the script")

func script(p string) Launch { return Launch{Kind: Script, Script: p} }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// javaJar: java -jar FILE runs that file; any other java command line
// runs classes found on a class path, which cannot be pinned.
func javaJar(name string, args []string) (Launch, error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-jar" && i+1 < len(args):
			return script(args[i+1]), nil
		case a == "-cp" || a == "-classpath" || a == "--class-path" || a == "-p" || a == "--module-path" || a == "-m" || a == "--module":
			return Launch{}, unpinned(name, "%s runs classes found on a path: package the server as a jar and run java -jar FILE", a)
		case !strings.HasPrefix(a, "-"):
			return Launch{}, unpinned(name, "runs class %s found on the class path: package the server as a jar and run java -jar FILE", a)
		}
	}
	return Launch{}, unpinned(name, "names no jar: run java -jar FILE")
}
