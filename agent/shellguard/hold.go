package shellguard

import "strings"

// holdReason says why a peeled command is on the Jev hold list (it always
// asks, whatever the advisor says), or "".
func holdReason(argv []word, p peeled) string {
	name := strings.ToLower(cmdName(argv[0]))
	sub, sub2 := "", ""
	var pos []string
	for _, a := range argv[1:] {
		if a.known && !strings.HasPrefix(a.val, "-") {
			pos = append(pos, a.val)
		}
	}
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
	switch name {
	case "":
		return ""
	case "git":
		if i := gitSubcommand(argv); i > 0 && i < len(argv) && argv[i].val == "push" {
			return "pushes to a remote (git push)"
		}
	case "rm":
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
	case "ssh", "scp", "sftp", "mosh", "slogin", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp":
		return "reaches another machine (" + name + ")"
	case "http", "https", "xh", "xhs": // HTTPie and xh: a method word or request items upload
		if isUploadMethod(sub) {
			return "uploads data (" + name + " " + sub + ")"
		}
		for _, v := range pos {
			if strings.Contains(v, "=") || strings.Contains(v, "@") && !strings.Contains(v, "://") {
				return "uploads data (" + name + " " + v + ")"
			}
		}
	case "rsync":
		for _, v := range pos {
			if c := strings.IndexByte(v, ':'); c > 0 && (strings.IndexByte(v, '/') < 0 || c < strings.IndexByte(v, '/')) {
				return "copies to or from another machine (rsync)"
			}
		}
	case "curl":
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
	case "wget":
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
	case "npm", "pnpm", "yarn", "bun", "cnpm":
		switch sub {
		case "install", "i", "add", "ci", "publish", "update", "up", "upgrade", "link", "exec", "x", "dlx", "create", "init", "unpublish":
			return "installs, runs or publishes packages (" + name + " " + sub + ")"
		case "uninstall", "remove", "rm", "un", "r", "unlink", "prune", "dedupe", "ddp", "version", "rebuild", "rb":
			return "removes or rebuilds packages or rewrites package.json (" + name + " " + sub + ")"
		case "audit":
			if sub2 == "fix" {
				return "rewrites package.json and installs packages (" + name + " audit fix)"
			}
		case "":
			if name == "yarn" {
				return "installs packages (yarn)"
			}
		}
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		return "downloads and runs a package (" + name + ")"
	case "pip", "pip3", "pip2":
		if sub == "install" || sub == "download" || sub == "uninstall" {
			return "installs packages (" + name + " " + sub + ")"
		}
	case "uv":
		if sub == "add" || sub == "sync" || sub == "publish" || (sub == "pip" || sub == "tool") && sub2 == "install" || sub == "run" {
			return "installs, runs or publishes packages (uv " + sub + ")"
		}
	case "poetry", "cargo", "gem", "composer", "bundle", "bundler", "conda", "mamba", "micromamba", "dotnet", "nuget", "twine", "mvn", "gradle", "helm", "docker", "podman":
		switch sub {
		case "install", "add", "publish", "push", "upload", "require", "deploy", "update", "upgrade", "sync", "yank", "release":
			return "installs or publishes packages (" + name + " " + sub + ")"
		}
	case "go":
		switch sub {
		case "install", "get":
			return "installs packages (go " + sub + ")"
		case "run":
			return "runs a program (go run)"
		}
	case "apt", "apt-get", "yum", "dnf", "brew", "apk", "zypper", "port", "snap", "flatpak", "choco", "winget", "emerge", "nix-env":
		switch sub {
		case "install", "add", "reinstall", "remove", "upgrade", "dist-upgrade", "full-upgrade", "update", "purge", "uninstall":
			return "installs system packages (" + name + " " + sub + ")"
		}
	case "pacman":
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.val, "-S") || strings.HasPrefix(a.val, "-U") || strings.HasPrefix(a.val, "-R") {
				return "installs system packages (pacman " + a.val + ")"
			}
		}
	}
	if isShell(name) || isInterpreter(name) || name == "rscript" || name == "tsx" || name == "ts-node" {
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
	}
	if argv[0].known && strings.IndexByte(argv[0].val, '/') >= 0 && !systemBin(argv[0].val) {
		return "runs a local program"
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
