package mcplaunch

import (
	"fmt"
	"regexp"
	"strings"
)

// ecosystem is a package registry's exact-version rule.
type ecosystem struct {
	// pinned is compiled on first use, not at package init: every
	// oceancode process links this package, few launch an MCP server.
	pinned  func() *regexp.Regexp
	example string // how to pin "pkg"
}

var (
	npmEco = ecosystem{
		pinned:  lazyRegexp(`^(npm:)?(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*@v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9a-z.-]+)?(\+[0-9a-z.-]+)?$`),
		example: "%s@1.2.3"}
	pypiEco = ecosystem{
		pinned:  lazyRegexp(`^[a-z0-9]([a-z0-9._-]*[a-z0-9])?(\[[a-z0-9._, -]+\])?(==|@)v?\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[a-z0-9.]+)?$`),
		example: "%s==1.2.3"}
	// A container image is pinned by its digest (a tag moves).
	imageEco = ecosystem{
		pinned:  lazyRegexp(`^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$`),
		example: "%s@sha256:<digest>"}
	jsrEco = ecosystem{
		pinned:  lazyRegexp(`^jsr:@[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_-]*@(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9a-z.-]+)?$`),
		example: "%s@1.2.3"}
)

// check returns the spec when it names one exact version, else an error
// saying how to pin it.
func (e ecosystem) check(runner, spec string) error {
	if e.pinned().MatchString(strings.ToLower(spec)) {
		return nil
	}
	name := spec
	if i := strings.LastIndexAny(spec, "@=<>~^!*"); i > 0 {
		name = strings.TrimRight(spec[:i], "=<>~^!@")
	}
	return unpinned(runner, "runs package %q without an exact version: pin it as %q (a range, a tag such as latest, a URL or no version at all names different code tomorrow)",
		spec, fmt.Sprintf(e.example, name))
}

// launcher is a package launcher's option table.
type launcher struct {
	eco ecosystem
	// main options name the package to run (npx -p, uvx --from): then the
	// first operand is a command of that package, not a package.
	main []string
	// extra options add packages (uvx --with): each must be pinned too.
	extra []string
	// value options take the next argument; flags take none. Any other
	// option must be written OPTION=VALUE: the analysis never guesses
	// whether it consumes the next argument.
	value, flags []string
	// refused options run something that cannot be pinned.
	refused map[string]string
}

var (
	npxTable = launcher{eco: npmEco, main: []string{"-p", "--package"},
		value:   []string{"--registry", "--cache", "--userconfig", "-w", "--workspace", "--loglevel"},
		flags:   []string{"-y", "--yes", "--no", "-q", "--quiet", "-s", "--silent", "--offline", "--prefer-offline", "--prefer-online", "--ignore-existing", "--legacy-peer-deps", "--no-install", "--verbose"},
		refused: map[string]string{"-c": "runs a shell command line", "--call": "runs a shell command line"}}
	bunxTable = launcher{eco: npmEco, main: []string{"-p", "--package"},
		flags: []string{"--bun", "--silent", "--verbose", "--no-install", "-y", "--yes"}}
	pnpmTable = launcher{eco: npmEco, main: []string{"--package"},
		flags:   []string{"--silent", "-s", "--reporter=silent"},
		refused: map[string]string{"-c": "runs a shell command line", "--shell-mode": "runs a shell command line"}}
	yarnTable = launcher{eco: npmEco, main: []string{"-p", "--package"}, flags: []string{"-q", "--quiet"}}
	uvxTable  = launcher{eco: pypiEco, main: []string{"--from"}, extra: []string{"--with"},
		value: []string{"--python", "-p", "--index", "--default-index", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
			"--cache-dir", "--prerelease", "--resolution", "--exclude-newer", "--python-platform", "--refresh-package", "--reinstall-package", "-P", "--upgrade-package", "--index-strategy", "--keyring-provider", "--color"},
		flags: []string{"-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache", "-n", "--isolated", "--no-progress", "-U", "--upgrade",
			"--refresh", "--reinstall", "--no-config", "--native-tls", "--managed-python", "--no-managed-python", "--no-python-downloads", "--no-build", "--no-binary"},
		refused: map[string]string{"--with-requirements": "adds packages from a file", "--with-editable": "adds a local directory's code",
			"--directory": "runs from another directory", "--project": "runs from another project", "-c": "adds constraints from a file", "--constraints": "adds constraints from a file", "--overrides": "overrides versions from a file"}}
	pipxTable = launcher{eco: pypiEco, main: []string{"--spec"},
		value:   []string{"--python", "--pip-args", "--index-url", "-i", "--backend"},
		flags:   []string{"-q", "--quiet", "-v", "--verbose", "--no-cache", "--system-site-packages", "--path"},
		refused: map[string]string{"-e": "runs a local directory's code", "--editable": "runs a local directory's code"}}
	dockerTable = launcher{eco: imageEco,
		value: []string{"-e", "--env", "--env-file", "-v", "--volume", "--name", "-p", "--publish", "--network", "--net", "-u", "--user",
			"-w", "--workdir", "--mount", "--platform", "--pull", "-l", "--label", "--cpus", "--memory", "-m", "--add-host", "--cap-add",
			"--cap-drop", "--security-opt", "--tmpfs", "--device", "--gpus", "--hostname", "-h", "--ulimit", "--userns", "--ipc", "--pid", "--log-driver"},
		flags:   []string{"-i", "--interactive", "-t", "--tty", "-it", "-ti", "--rm", "-d", "--detach", "--init", "--read-only", "-q", "--quiet"},
		refused: map[string]string{"--privileged": "runs the container with every privilege"}}
)

func dockerRun(name string, args []string) (Launch, error) { return dockerTable.analyze(name, args) }

func npmExec(name string, args []string) (Launch, error) { return npxTable.analyze(name, args) }
func bunx(name string, args []string) (Launch, error)    { return bunxTable.analyze(name, args) }
func pnpmDlx(name string, args []string) (Launch, error) { return pnpmTable.analyze(name, args) }
func yarnDlx(name string, args []string) (Launch, error) { return yarnTable.analyze(name, args) }
func uvx(name string, args []string) (Launch, error)     { return uvxTable.analyze(name, args) }
func pipxRun(name string, args []string) (Launch, error) { return pipxTable.analyze(name, args) }

// analyze reads a launcher's options and its package operand: every
// package it runs must name one exact version.
func (t launcher) analyze(name string, args []string) (Launch, error) {
	l := Launch{Kind: Package}
	hasMain := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return t.operand(name, l, hasMain, args[i+1])
			}
			break
		}
		if !strings.HasPrefix(a, "-") {
			return t.operand(name, l, hasMain, a)
		}
		specs, main, next, err := t.option(name, args, i)
		if err != nil {
			return Launch{}, err
		}
		l.Packages = append(l.Packages, specs...)
		hasMain = hasMain || main
		i = next
	}
	return Launch{}, unpinned(name, "names no package to run: name it with an exact version, e.g. %q", fmt.Sprintf(t.eco.example, "pkg"))
}

// option reads the option at args[i]: the pinned packages it names, whether
// it names the main package, and the index of its last argument.
func (t launcher) option(name string, args []string, i int) (specs []string, main bool, last int, err error) {
	a := args[i]
	opt, val, hasVal := strings.Cut(a, "=")
	takesValue := contains(t.main, opt) || contains(t.extra, opt) || contains(t.value, opt)
	if takesValue && !hasVal {
		if i+1 >= len(args) {
			return nil, false, i, unpinned(name, "%s needs a value", opt)
		}
		i++
		val = args[i]
	}
	switch why, refused := t.refused[opt]; {
	case refused:
		return nil, false, i, unpinned(name, "%s %s, which cannot be pinned", opt, why)
	case contains(t.main, opt) || contains(t.extra, opt):
		for _, spec := range strings.Split(val, ",") {
			spec = strings.TrimSpace(spec)
			if err := t.eco.check(name, spec); err != nil {
				return nil, false, i, err
			}
			specs = append(specs, spec)
		}
		return specs, contains(t.main, opt), i, nil
	case takesValue, hasVal, contains(t.flags, a):
		return nil, false, i, nil
	}
	return nil, false, i, unpinned(name, "option %s is not known to take no value: write it as %s=VALUE, or drop it", a, a)
}

// operand is the first operand: the package (which must be pinned), or,
// after a main package option, a command of that package.
func (t launcher) operand(name string, l Launch, hasMain bool, op string) (Launch, error) {
	if hasMain {
		return l, nil
	}
	if err := t.eco.check(name, op); err != nil {
		return Launch{}, err
	}
	l.Packages = append(l.Packages, op)
	return l, nil
}
