package shellguard

import "strings"

// holdReason says why a peeled command is on the Jev hold list (it always
// asks, whatever the advisor says), or "".
func holdReason(argv []word, p peeled) string {
	name := strings.ToLower(cmdName(argv[0]))
	var pos []string
	for _, a := range argv[1:] {
		if a.known && !strings.HasPrefix(a.val, "-") {
			pos = append(pos, a.val)
		}
	}
	sub, sub2 := "", ""
	if len(pos) > 0 {
		sub = pos[0]
	}
	if len(pos) > 1 {
		sub2 = pos[1]
	}
	if p.danger != "" {
		// PATH=. ls, LD_PRELOAD=x.so go test, NODE_OPTIONS=-r./x.js npm
		// test: the assignment makes the command run code it does not
		// name. Only the first such name is recorded, so none is excused.
		return "sets " + p.danger + ", which changes what the command runs"
	}
	if name == "" {
		return ""
	}
	if why := holdByName(name, argv, pos, sub, sub2); why != "" {
		return why
	}
	if isShell(name) || isInterpreter(name) || name == "rscript" || name == "tsx" || name == "ts-node" {
		if why := holdInterpreter(name, argv); why != "" {
			return why
		}
	}
	if argv[0].known && strings.IndexByte(argv[0].val, '/') >= 0 && !systemBin(argv[0].val) {
		return "runs a local program"
	}
	return ""
}

// holdSubRule is one row of the hold list's subcommand table: programs,
// the subcommands that put them on hold, and the reason, which ends in
// "(program subcommand)".
type holdSubRule struct {
	names, subs []string
	why         string
}

// holdSubRules: package managers and their installing, publishing or
// removing subcommands.
var holdSubRules = []holdSubRule{
	{[]string{"npm", "pnpm", "yarn", "bun", "cnpm"},
		[]string{"install", "i", "add", "ci", "publish", "update", "up", "upgrade", "link", "exec", "x", "dlx", "create", "init", "unpublish"},
		"installs, runs or publishes packages"},
	{[]string{"npm", "pnpm", "yarn", "bun", "cnpm"},
		[]string{"uninstall", "remove", "rm", "un", "r", "unlink", "prune", "dedupe", "ddp", "version", "rebuild", "rb"},
		"removes or rebuilds packages or rewrites package.json"},
	{[]string{"pip", "pip3", "pip2"}, []string{"install", "download", "uninstall"}, "installs packages"},
	{[]string{"poetry", "cargo", "gem", "composer", "bundle", "bundler", "conda", "mamba", "micromamba", "dotnet", "nuget", "twine", "mvn", "gradle", "helm", "docker", "podman"},
		[]string{"install", "add", "publish", "push", "upload", "require", "deploy", "update", "upgrade", "sync", "yank", "release"},
		"installs or publishes packages"},
	{[]string{"go"}, []string{"install", "get"}, "installs packages"},
	{[]string{"go"}, []string{"run"}, "runs a program"},
	{[]string{"apt", "apt-get", "yum", "dnf", "brew", "apk", "zypper", "port", "snap", "flatpak", "choco", "winget", "emerge", "nix-env"},
		[]string{"install", "add", "reinstall", "remove", "upgrade", "dist-upgrade", "full-upgrade", "update", "purge", "uninstall"},
		"installs system packages"},
}

// holdSubs is holdSubRules by program, then subcommand, built with the
// other tables on the first New (initHoldSubs).
var holdSubs map[string]map[string]string

func initHoldSubs() {
	m := map[string]map[string]string{}
	for _, r := range holdSubRules {
		for _, n := range r.names {
			if m[n] == nil {
				m[n] = map[string]string{}
			}
			for _, s := range r.subs {
				m[n][s] = r.why
			}
		}
	}
	holdSubs = m
}

// holdRemote are the programs that reach another machine.
var holdRemote = map[string]bool{"ssh": true, "scp": true, "sftp": true, "mosh": true, "slogin": true, "nc": true, "ncat": true,
	"netcat": true, "socat": true, "telnet": true, "ftp": true, "tftp": true}

// holdByName applies the hold list's rules keyed by program name.
func holdByName(name string, argv []word, pos []string, sub, sub2 string) string {
	if subs, ok := holdSubs[name]; ok {
		if why := subs[sub]; why != "" {
			return why + " (" + name + " " + sub + ")"
		}
	}
	if holdRemote[name] {
		return "reaches another machine (" + name + ")"
	}
	switch name {
	case "git":
		if i := gitSubcommand(argv); i > 0 && i < len(argv) && argv[i].val == "push" {
			return "pushes to a remote (git push)"
		}
	case "rm":
		return holdRm(argv)
	case "http", "https", "xh", "xhs": // HTTPie and xh: a method word or request items upload
		return holdHTTPie(name, pos, sub)
	case "rsync":
		for _, v := range pos {
			if c := strings.IndexByte(v, ':'); c > 0 && (strings.IndexByte(v, '/') < 0 || c < strings.IndexByte(v, '/')) {
				return "copies to or from another machine (rsync)"
			}
		}
	case "curl":
		return holdCurl(argv)
	case "wget":
		return holdWget(argv)
	case "npm", "pnpm", "yarn", "bun", "cnpm":
		if sub == "audit" && sub2 == "fix" {
			return "rewrites package.json and installs packages (" + name + " audit fix)"
		}
		if sub == "" && name == "yarn" {
			return "installs packages (yarn)"
		}
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		return "downloads and runs a package (" + name + ")"
	case "uv":
		if sub == "add" || sub == "sync" || sub == "publish" || (sub == "pip" || sub == "tool") && sub2 == "install" || sub == "run" {
			return "installs, runs or publishes packages (uv " + sub + ")"
		}
	case "pacman":
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.val, "-S") || strings.HasPrefix(a.val, "-U") || strings.HasPrefix(a.val, "-R") {
				return "installs system packages (pacman " + a.val + ")"
			}
		}
	}
	return ""
}

// holdRm: rm -r, in any spelling, before --.
func holdRm(argv []word) string {
	for _, a := range argv[1:] {
		v := a.val
		if v == "--" {
			break
		}
		if strings.HasPrefix(v, "--") && len(v) > 2 && strings.HasPrefix("--recursive", v) ||
			len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v, "rR") {
			return "removes recursively (rm -r)"
		}
	}
	return ""
}

// holdHTTPie: HTTPie and xh upload with a method word or request items.
func holdHTTPie(name string, pos []string, sub string) string {
	if isUploadMethod(sub) {
		return "uploads data (" + name + " " + sub + ")"
	}
	for _, v := range pos {
		if strings.Contains(v, "=") || strings.Contains(v, "@") && !strings.Contains(v, "://") {
			return "uploads data (" + name + " " + v + ")"
		}
	}
	return ""
}

// holdCurl: curl options that upload data or use an uploading method.
func holdCurl(argv []word) string {
	for i, a := range argv[1:] {
		v := a.val
		n, _, _ := strings.Cut(v, "=")
		switch {
		case strings.HasPrefix(n, "--data") || n == "--form" || n == "--form-string" || n == "--upload-file" || n == "--json":
			return "uploads data (curl " + n + ")"
		case n == "-X" || n == "--request":
			if i+2 < len(argv) && isUploadMethod(argv[i+2].val) {
				return "uploads data (curl " + n + " " + argv[i+2].val + ")"
			}
		case strings.HasPrefix(v, "-X") && len(v) > 2:
			if isUploadMethod(v[2:]) {
				return "uploads data (curl " + v + ")"
			}
		case strings.HasPrefix(v, "--request="):
			if isUploadMethod(v[len("--request="):]) {
				return "uploads data (curl " + v + ")"
			}
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			for j := 1; j < len(v); j++ {
				if c := v[j]; c == 'd' || c == 'F' || c == 'T' {
					return "uploads data (curl " + v + ")"
				}
				if strings.IndexByte("oHAeuxXwrEKbcmCyYzUQ", v[j]) >= 0 {
					break // option with a value
				}
			}
		}
	}
	return ""
}

// holdWget: wget options that upload data or use an uploading method.
func holdWget(argv []word) string {
	for _, a := range argv[1:] {
		n, val, _ := strings.Cut(a.val, "=")
		switch n {
		case "--post-data", "--post-file", "--body-data", "--body-file":
			return "uploads data (wget " + n + ")"
		case "--method":
			if isUploadMethod(val) {
				return "uploads data (wget " + a.val + ")"
			}
		}
	}
	return ""
}

// holdInterpreter: a shell or interpreter running a file or a module.
func holdInterpreter(name string, argv []word) string {
	if i := interpreterScript(argv); i > 0 {
		return "runs a file with an interpreter (" + name + " " + argv[i].text + ")"
	}
	if name == "python" || strings.HasPrefix(name, "python") {
		for i, a := range argv[1:] {
			if a.val == "-m" && i+2 < len(argv) {
				if argv[i+2].val == "pip" {
					return "installs packages (python -m pip)"
				}
				return "runs a module (" + name + " -m " + argv[i+2].text + ")"
			}
		}
	}
	return ""
}

func isUploadMethod(m string) bool {
	switch strings.ToUpper(m) {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// interpreterScript returns the index of the script file an interpreter
// runs (python x.py, bash x.sh, node x.js), or 0.
func interpreterScript(argv []word) int {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		v := a.val
		if !a.known {
			return 0
		}
		if v == "--" {
			if i+1 < len(argv) {
				return i + 1
			}
			return 0
		}
		if v == "-" {
			return 0
		}
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			if len(v) > 1 && v[1] != '-' && strings.ContainsAny(v[len(v)-1:], "cemEpr") {
				return 0 // -c / -e: inline code, not a file
			}
			switch v {
			case "-o", "-O", "+o", "+O", "--rcfile", "--init-file", "-W", "-X", "-I", "--require", "-r":
				i++
			case "--eval", "--print":
				return 0
			}
			continue
		}
		if v == "run" && (cmdName(argv[0]) == "deno" || cmdName(argv[0]) == "bun") {
			continue
		}
		return i
	}
	return 0
}
