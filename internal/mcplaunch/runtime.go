package mcplaunch

import (
	"strings"
)

// The JavaScript runtimes and uv run: an interpreter with subcommands, which
// may run a file, code in the arguments or a package.

var (
	bunOpts = options{code: "ep", load: "r", codeLong: []string{"--eval", "--print"},
		loadLong: []string{"--preload", "--cwd"}, valueLong: []string{"--config", "--env-file", "--tsconfig-override"},
		noScript: "names no script"}
	denoOpts = options{load: "", value: "cL",
		valueLong: []string{"--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--log-level", "--env-file", "--ext"},
		loadLong:  []string{"--preload", "--import"},
		noScript:  "names no script"}
)

// bun: bun [run] FILE, bun x PKG (bunx), bun -e CODE.
func bun(name string, args []string) (Launch, error) {
	if i := firstOperand(args); i >= 0 {
		switch args[i] {
		case "x":
			return bunx(name+" x", args[i+1:])
		case "run":
			args = append(append([]string(nil), args[:i]...), args[i+1:]...)
		}
	}
	return interp(bunOpts)(name, args)
}

// deno: deno run|serve [options] FILE|npm:PKG@V|jsr:@S/P@V, deno eval CODE,
// deno FILE.
func deno(name string, args []string) (Launch, error) {
	if i := firstOperand(args); i >= 0 {
		switch args[i] {
		case "eval":
			return Launch{Kind: Inline}, nil
		case "run", "serve":
			args = append(append([]string(nil), args[:i]...), args[i+1:]...)
		case "task", "x", "install", "repl", "test", "bench", "compile":
			return Launch{}, unpinned(name, "%s runs code that cannot be pinned: use deno run FILE or deno run npm:PKG@VERSION", args[i])
		}
	}
	l, err := interp(denoOpts)(name, args)
	if err != nil || l.Kind != Script {
		return l, err
	}
	return denoTarget(name, l.Script)
}

// denoTarget pins what deno run names: a file, or a package at an exact
// version; a URL serves whatever it serves tomorrow.
func denoTarget(name, target string) (Launch, error) {
	lower := strings.ToLower(target)
	switch {
	case strings.HasPrefix(lower, "npm:"):
		if err := npmEco.check(name, target); err != nil {
			return Launch{}, err
		}
		return Launch{Kind: Package, Packages: []string{target}}, nil
	case strings.HasPrefix(lower, "jsr:"):
		if err := jsrEco.check(name, target); err != nil {
			return Launch{}, err
		}
		return Launch{Kind: Package, Packages: []string{target}}, nil
	case strings.HasPrefix(lower, "http:"), strings.HasPrefix(lower, "https:"), strings.HasPrefix(lower, "data:"), strings.HasPrefix(lower, "file:"):
		return Launch{}, unpinned(name, "runs %s, whose content no digest pins: download it, review it and run the file", target)
	}
	return script(target), nil
}

var uvRunTable = launcher{eco: pypiEco, extra: []string{"--with"},
	value: []string{"--python", "-p", "--index", "--default-index", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
		"--extra", "--group", "--only-group", "--no-group", "--env-file", "--cache-dir", "--prerelease", "--resolution", "--exclude-newer", "--color"},
	flags: []string{"-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache", "--isolated", "--no-progress", "--no-sync", "--frozen",
		"--locked", "--no-project", "--no-dev", "--all-extras", "--all-groups", "--active", "--exact", "--no-env-file", "--script",
		"--no-config", "--native-tls", "--managed-python", "--no-managed-python", "--no-python-downloads", "-s", "--upgrade", "-U"},
	refused: map[string]string{"-m": "runs a module found by name", "--module": "runs a module found by name",
		"--with-requirements": "adds packages from a file", "--with-editable": "adds a local directory's code",
		"--directory": "runs from another directory", "--project": "runs from another project", "--package": "runs a workspace member's command",
		"--gui-script": "runs a GUI script", "--from": "runs a command from a package"}}

// uvRun: uv run [options] FILE | python [python options] FILE; the packages
// --with adds must be pinned.
func uvRun(name string, args []string) (Launch, error) {
	i := 0
	var pkgs []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		specs, _, last, err := uvRunTable.option(name, args, i)
		if err != nil {
			return Launch{}, err
		}
		pkgs = append(pkgs, specs...)
		i = last
	}
	if i >= len(args) {
		return Launch{}, unpinned(name, "names no script: name the script file to run")
	}
	op, rest := args[i], args[i+1:]
	var l Launch
	var err error
	switch {
	case versioned().MatchString(op) && strings.HasPrefix(op, "py"):
		l, err = interp(python)(op, rest)
	case strings.HasSuffix(op, ".py") || strings.HasSuffix(op, ".pyw") || strings.ContainsAny(op, `/\`):
		l = script(op)
	default:
		return Launch{}, unpinned(name, "runs %s, a command of the project's environment that no digest pins: run the script file (uv run FILE.py) or uvx %s", op, op+"==VERSION")
	}
	if err != nil {
		return Launch{}, err
	}
	l.Packages = append(pkgs, l.Packages...)
	return l, nil
}

// firstOperand is the index of the first argument that is not an option
// (-1: none).
func firstOperand(args []string) int {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return i
		}
	}
	return -1
}
