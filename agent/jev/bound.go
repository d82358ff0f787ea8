package jev

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/shellguard"
)

// The code-side bound: what no advice can approve, whatever the model
// answers. Each check reads one segment after the shell guard peeled its
// wrappers (sudo, env, timeout, command, busybox, bash -c, xargs, find
// -exec, ...), so a class is recognised under every spelling the guard
// peels. Classes, not lists of commands:
//
//   - code the checks cannot read: interpreters (inline -c/-e, stdin, a
//     REPL), shells, database statements, awk programs that run commands or
//     write files, sed scripts with e/w/r, make and generators;
//   - destructive version control: reset --hard, clean, checkout/restore
//     over the work tree, branch and tag deletion, stash drop/clear, push,
//     history rewrites and pruning;
//   - in-place overwrite and truncation: truncate, shred, dd of=, a
//     redirect, tee, cp/mv/install/ln -f/rsync onto an existing file;
//   - removal: find -delete/-exec, xargs, rm/unlink of anything but a file
//     git holds unchanged (asked of git at decision time, fail closed);
//   - acting outside the project: other users (sudo), processes, the
//     system's services and firewall, networks, clusters, clouds, forges,
//     containers, database servers.

// boundSegment says why segment s is outside what the advisor may
// approve, or "". g answers git questions about removal targets; cwd is
// the directory the segment runs in ("" when a cd made it unknown).
func boundSegment(s *shellguard.Segment, cwd string, g *gitState) string {
	for _, w := range s.Wrappers {
		if why := boundWrapper(w); why != "" {
			return why
		}
		if changesDir(w) {
			cwd = "" // env -C dir: the paths land in a directory the checks do not follow
		}
	}
	for _, r := range s.Redirects {
		if why := overwriteRedirect(r, cwd); why != "" {
			return why
		}
	}
	if len(s.Argv) == 0 {
		return ""
	}
	name := progName(s.Argv[0])
	args := s.Argv[1:]
	if why := inlineCode(name, args); why != "" {
		return why
	}
	if launchers[name] {
		return "runs another command the shell guard does not peel (" + name + ")"
	}
	if sub := firstOperand(args); subLaunchers[name] && (sub == "run" || sub == "exec" || sub == "shell" || sub == "x" || sub == "develop") {
		return "runs another command (" + name + " " + sub + ")"
	}
	if why, ok := outsideActors[name]; ok {
		return why + " (" + name + ")"
	}
	switch name {
	case "git":
		return gitBound(s.Argv, cwd, g)
	case "truncate", "shred", "wipe", "srm", "fallocate":
		return "truncates or overwrites a file in place (" + name + ")"
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a, "of=") {
				return "writes a file in place (dd " + a + ")"
			}
		}
	case "find":
		for _, a := range args {
			switch a {
			case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
				return "deletes, writes or runs a command per file (find " + a + ")"
			}
		}
	case "fd", "fdfind", "rg", "ripgrep", "split", "man", "gio":
		return commandOption(name, args)
	case "chown", "chgrp":
		return "changes ownership (" + name + "), which only root can undo"
	case "chmod", "chattr", "setfacl":
		if recursive(args) {
			return "changes modes recursively (" + name + " -R): the modes before are not recorded"
		}
	case "tee":
		if !hasFlag(args, "a", "--append") {
			for _, p := range operands(args, nil) {
				if why := existing(cwd, p, "tee"); why != "" {
					return why
				}
			}
		}
	case "sponge":
		if ops := operands(args, nil); len(ops) > 0 && !hasFlag(args, "a", "--append") {
			return existing(cwd, ops[len(ops)-1], name)
		}
	case "cp", "mv", "install", "ln", "rsync":
		return copyBound(name, args, cwd)
	case "npm", "pnpm", "yarn", "bun", "cnpm":
		return scriptBound(name, args)
	case "tar", "bsdtar", "gtar":
		return tarBound(args, cwd)
	case "unzip":
		return unzipBound(args, cwd)
	case "zip":
		return zipBound(args, cwd)
	case "sort", "patch", "gpg", "gpg2", "openssl", "uniq":
		if why := commandOption(name, args); why != "" {
			return why
		}
		return outputBound(name, args, cwd)
	case "7z", "7za", "7zz", "unrar", "cpio", "pax", "ar":
		return "extracts an archive over files the checks cannot list (" + name + ")"
	case "source", ".":
		return "runs a shell script in the shell (" + name + ")"
	case "rm", "unlink":
		return removeBound(name, args, cwd, g)
	}
	return ""
}

// boundWrapper says why a peeled wrapper puts its command out of the
// advisor's reach, or "".
func boundWrapper(w string) string {
	f := strings.Fields(w)
	if len(f) == 0 {
		return ""
	}
	name := progName(f[0])
	switch {
	case isShellName(name):
		return "runs inline shell code (" + clip(w, 40) + ")"
	case name == "env" && (contains(f, "-S") || hasPrefixAny(f, "--split-string", "-S")):
		return "runs a command line from a string (env -S)"
	case name == "find":
		return "runs a command per found file (" + clip(w, 40) + ")"
	case name == "xargs" || name == "parallel":
		return "runs a command on arguments read from input (" + name + "), which the checks cannot see"
	case name == "watch":
		return "runs its command through sh -c, repeatedly (watch)"
	case name == "sudo" || name == "doas" || name == "su" || name == "runuser" || name == "pkexec" || name == "sg" || name == "setpriv" || name == "chroot" || name == "unshare" || name == "nsenter":
		return "runs as another user or in another namespace (" + name + ")"
	case name == "script" || name == "ssh" || name == "flatpak-spawn":
		return "runs a command line elsewhere or through a shell (" + name + ")"
	}
	return ""
}

// changesDir reports whether a peeled wrapper runs its command in another
// directory (env -C dir, env --chdir=dir).
func changesDir(w string) bool {
	f := strings.Fields(w)
	if len(f) == 0 || progName(f[0]) != "env" {
		return false
	}
	for _, a := range f[1:] {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			if n, _, _ := strings.Cut(a, "="); abbreviates(n, []string{"--chdir"}) {
				return true
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && strings.ContainsRune(a[1:], 'C') {
			return true
		}
	}
	return false
}

// progName is a command's program as the classes know it: the base name,
// lowercased, without ".exe" or a trailing version (python3.12 → python,
// perl5.36 → perl, node18 → node), and without the prefix of an alternative
// build of a GNU or coreutils program (grm and gtimeout from Homebrew's
// coreutils, uu-rm from uutils).
func progName(s string) string {
	n := strings.ToLower(path.Base(strings.ReplaceAll(s, `\`, "/")))
	n = strings.TrimSuffix(n, ".exe")
	i := len(n)
	for i > 0 && (n[i-1] >= '0' && n[i-1] <= '9' || n[i-1] == '.') {
		i--
	}
	if i > 0 && i < len(n) && !digitNames[n] {
		n = strings.TrimRight(n[:i], "-_")
	}
	if rest, ok := strings.CutPrefix(n, "uu-"); ok && rest != "" {
		return rest
	}
	if rest, ok := strings.CutPrefix(n, "g"); ok && gnuPrefixed[rest] {
		return rest
	}
	return n
}

// digitNames end in a digit that is part of the name, not a version.
var digitNames = map[string]bool{"m4": true, "base64": true, "base32": true, "b2sum": true}

// gnuPrefixed are the programs the classes know that Homebrew's coreutils,
// findutils and friends install with a "g" prefix (grm, gdd, gfind). Only
// names whose g-form is not another program are listed (gunzip is not
// unzip).
var gnuPrefixed = map[string]bool{
	"rm": true, "cp": true, "mv": true, "ln": true, "dd": true, "install": true, "truncate": true, "shred": true,
	"tee": true, "unlink": true, "rmdir": true, "find": true, "xargs": true, "timeout": true, "env": true, "nice": true,
	"nohup": true, "stdbuf": true, "sort": true, "uniq": true, "split": true, "csplit": true, "chown": true,
	"chgrp": true, "chmod": true, "touch": true, "date": true, "kill": true, "realpath": true, "patch": true,
}

func isShellName(n string) bool {
	switch n {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash", "elvish", "nu", "xonsh", "oil", "osh", "ysh":
		return true
	}
	return false
}

// interpreters run code, whatever their arguments: inline (-c, -e, -r,
// --eval), from standard input, a REPL, or a file (which the hold list
// holds too). Only a version or help query is left to the advisor.
var interpreters = map[string]bool{
	"python": true, "pypy": true, "ipython": true, "perl": true, "ruby": true, "irb": true, "jruby": true,
	"node": true, "nodejs": true, "php": true, "lua": true, "luajit": true, "rscript": true, "r": true,
	"osascript": true, "pwsh": true, "powershell": true, "tclsh": true, "wish": true, "expect": true,
	"julia": true, "elixir": true, "iex": true, "erl": true, "escript": true, "guile": true, "racket": true,
	"sbcl": true, "clisp": true, "ocaml": true, "ghci": true, "runghc": true, "runhaskell": true,
	"groovy": true, "scala": true, "jshell": true, "kotlin": true, "tsx": true, "ts-node": true,
	"perl6": true, "raku": true, "rakudo": true, "gdb": true, "lldb": true,
	"vim": true, "vi": true, "nvim": true, "ex": true, "emacs": true, "ed": true,
	"cscript": true, "wscript": true, "mshta": true, "jjs": true, "qjs": true, "d8": true,
	"m4": true, "dc": true, // m4's syscmd and dc's ! run shell commands
}

// launchers run the command their arguments name (strace rm x): a class
// of wrappers the shell guard does not peel, so the command is unseen.
var launchers = map[string]bool{
	"chrt": true, "taskset": true, "numactl": true, "cpulimit": true, "prlimit": true, "strace": true, "ltrace": true,
	"valgrind": true, "perf": true, "catchsegv": true, "fakeroot": true, "fakechroot": true, "proot": true, "firejail": true,
	"bwrap": true, "systemd-run": true, "tsp": true, "unbuffer": true, "torsocks": true, "proxychains": true,
	"proxychains4": true, "xvfb-run": true, "dbus-run-session": true, "ssh-agent": true, "caffeinate": true,
	"chronic": true, "entr": true, "hyperfine": true, "watchexec": true, "nodemon": true, "nix-shell": true,
	"time": true, "nice": true, "nohup": true, "timeout": true, "stdbuf": true, "ionice": true, "setsid": true, "flock": true,
	"env": true, "command": true, "builtin": true, "exec": true, "eval": true, "xargs": true, "parallel": true,
	"sudo": true, "doas": true, "su": true, "runuser": true, "pkexec": true, "chroot": true, "unshare": true, "nsenter": true,
	"script": true, "watch": true, "at": true, "batch": true, "coreutils": true, "uutils": true,
}

// subLaunchers run a command with "run", "exec", "shell", "x" or "develop"
// (poetry run rm x, bundle exec rm x, nix develop -c rm x).
var subLaunchers = map[string]bool{
	"poetry": true, "pipenv": true, "conda": true, "mamba": true, "micromamba": true, "pixi": true, "devbox": true,
	"hatch": true, "pdm": true, "rye": true, "bundle": true, "bundler": true, "rbenv": true, "pyenv": true, "asdf": true,
	"mise": true, "rtx": true, "direnv": true, "opam": true, "stack": true, "nvm": true, "volta": true, "nix": true,
	"dotnet": true, "flatpak": true, "snap": true, "distrobox": true, "toolbox": true, "devcontainer": true,
}

// databases run statements against a database (a file in the project or a
// server): inline SQL or commands, or whatever standard input holds.
var databases = map[string]bool{
	"sqlite": true, "psql": true, "mysql": true, "mariadb": true, "mongo": true, "mongosh": true,
	"redis-cli": true, "valkey-cli": true, "cqlsh": true, "clickhouse-client": true, "clickhouse": true,
	"duckdb": true, "sqlcmd": true, "isql": true, "usql": true, "cockroach": true, "influx": true,
}

// inlineCode says why name with args runs code the checks cannot read,
// or "".
func inlineCode(name string, args []string) string {
	switch {
	case isShellName(name):
		return "runs shell code (" + name + ")"
	case interpreters[name] || interpreterVariant(name):
		if versionQuery(args) {
			return ""
		}
		return "runs code with an interpreter (" + name + "): inline, from input or a file"
	case databases[name]:
		if versionQuery(args) {
			return ""
		}
		return "runs database statements (" + name + ")"
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "goawk" || name == "original-awk" || name == "bwk":
		return awkBound(name, args)
	case name == "sed" || name == "gsed":
		return sedBound(args)
	case name == "deno":
		if sub := firstOperand(args); sub == "eval" || sub == "repl" || sub == "run" || sub == "x" || sub == "task" || hasFlag(args, "", "-e", "--eval", "-p", "--print") {
			return "runs code with an interpreter (deno " + sub + ")"
		}
	case name == "bun":
		if hasFlag(args, "ep", "--eval", "--print") || firstOperand(args) == "exec" {
			return "runs inline code (bun -e)"
		}
	case name == "make" || name == "gmake" || name == "bmake" || name == "pmake":
		return "runs the Makefile's recipes (" + name + "), code the checks cannot read"
	case name == "ninja" || name == "just" || name == "cmake" || name == "rake" || name == "scons":
		if versionQuery(args) {
			return ""
		}
		return "runs a build file's commands (" + name + "), code the checks cannot read"
	case name == "rename" || name == "prename" || name == "file-rename" || name == "perl-rename":
		return "runs a Perl expression per file name (" + name + ")"
	case name == "go":
		switch firstOperand(args) {
		case "generate":
			return "runs the commands written in source comments (go generate)"
		case "run":
			return "runs a program (go run)"
		case "mod":
			return "fetches modules over the network (go mod)"
		}
	case name == "cargo":
		if sub := firstOperand(args); sub == "run" || sub == "install" || sub == "script" {
			return "runs a program (cargo " + sub + ")"
		}
	}
	return ""
}

// versionQuery reports whether args only ask for a version or help.
func versionQuery(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		switch a {
		case "--version", "-V", "-version", "--help", "-h", "-help", "version":
		default:
			return false
		}
	}
	return true
}

// outsideActors are programs that act outside the project by nature: on
// other processes, the system, other machines, clusters, clouds, forges,
// containers. What they touch is not in the project's history.
var outsideActors = func() map[string]string {
	m := map[string]string{}
	add := func(why string, names ...string) {
		for _, n := range names {
			m[n] = why
		}
	}
	add("acts on other processes", "kill", "pkill", "killall", "skill", "xkill", "renice")
	add("acts on other terminals' processes or sends them keystrokes", "tmux", "screen", "zellij", "byobu")
	add("hands a file to the desktop, which may run it", "xdg-open", "open", "gnome-open", "kde-open", "wslview", "start")
	add("changes the system", "systemctl", "service", "launchctl", "crontab", "at", "iptables", "ip6tables", "nft",
		"ufw", "firewall-cmd", "pfctl", "shutdown", "reboot", "poweroff", "halt", "mount", "umount", "swapoff",
		"sysctl", "modprobe", "rmmod", "insmod", "useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd",
		"chpasswd", "chsh", "visudo", "update-alternatives", "ldconfig", "timedatectl", "hostnamectl", "journalctl",
		"loginctl", "defaults", "scutil", "networksetup", "diskutil", "mkswap", "fdisk", "parted", "wipefs", "losetup",
		"cryptsetup", "lvremove", "vgremove", "zpool", "zfs", "btrfs", "tmutil", "dscl", "reg", "schtasks", "sc", "netsh")
	add("reaches the network", "curl", "wget", "http", "https", "xh", "xhs", "aria2c", "lftp", "rclone", "s3cmd",
		"gsutil", "azcopy", "httpie", "grpcurl", "websocat", "ping", "dig", "nslookup", "host", "nmap", "whois")
	add("acts on a cluster, cloud or forge", "kubectl", "k9s", "helm", "helmfile", "kustomize", "oc", "eksctl", "kind",
		"minikube", "k3d", "aws", "gcloud", "az", "doctl", "linode-cli", "hcloud", "scw", "ibmcloud", "oci", "heroku",
		"fly", "flyctl", "vercel", "netlify", "wrangler", "firebase", "railway", "render", "terraform", "tofu",
		"terragrunt", "pulumi", "cdk", "sam", "serverless", "ansible", "ansible-playbook", "salt", "vagrant",
		"packer", "nomad", "consul", "vault", "gh", "glab", "hub", "tea", "bb", "stripe", "supabase")
	add("acts on containers or their daemon", "docker", "docker-compose", "podman", "podman-compose", "nerdctl",
		"ctr", "crictl", "buildah", "skopeo", "lima", "limactl", "colima", "lxc", "incus", "virsh", "multipass", "qemu-img")
	return m
}()

// recursive reports a -R/-r/--recursive option.
func recursive(args []string) bool {
	return hasFlag(args, "Rr", "--recursive")
}

// abbreviates reports whether n ("--har") is an abbreviation of one of
// the long options: git and getopt_long accept any unambiguous prefix, and
// the checks take every prefix (an ambiguous one makes the program fail).
func abbreviates(n string, long []string) bool {
	if len(n) < 3 {
		return false
	}
	for _, l := range long {
		if strings.HasPrefix(l, "--") && strings.HasPrefix(l, n) {
			return true
		}
	}
	return false
}

// hasFlag reports whether args (up to "--") carry one of the short option
// letters in short (alone or in a cluster: -fdx) or a long option (exact,
// or with =value).
func hasFlag(args []string, short string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			n, _, _ := strings.Cut(a, "=")
			if contains(long, n) || abbreviates(n, long) {
				return true
			}
			continue
		}
		if contains(long, a) {
			return true
		}
		if len(a) > 1 && a[0] == '-' && short != "" && strings.ContainsAny(a[1:], short) {
			return true
		}
	}
	return false
}

func hasPrefixAny(list []string, prefixes ...string) bool {
	for _, l := range list {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				return true
			}
		}
	}
	return false
}

// operands are the arguments that are not options ("-x", "--long"), all
// arguments after "--" included. valued lists options that take the next
// argument as their value.
func operands(args []string, valued []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case a == "-" || !strings.HasPrefix(a, "-"):
			out = append(out, a)
		case contains(valued, a):
			i++
		}
	}
	return out
}

func firstOperand(args []string) string {
	if ops := operands(args, nil); len(ops) > 0 {
		return ops[0]
	}
	return ""
}

// globby reports whether an operand could be a pattern: the segment's
// words are quote-removed, so a quoted '*' and a glob look alike, and both
// fail closed.
func globby(p string) bool { return strings.ContainsAny(p, "*?[]{}") || p == "" }

// existing refuses an overwrite of p (relative to cwd) when p exists, or
// when where it lands cannot be told.
func existing(cwd, p, how string) string {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "-":
		return ""
	}
	if cwd == "" {
		return "overwrites " + p + " after a cd the checks cannot follow (" + how + ")"
	}
	if globby(p) {
		return "overwrites a pattern the checks cannot resolve (" + how + " " + p + ")"
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if _, err := os.Lstat(p); err == nil {
		return "overwrites the existing file " + p + " (" + how + ")"
	} else if !os.IsNotExist(err) {
		return "overwrites " + p + ", which cannot be checked (" + err.Error() + ")"
	}
	return ""
}

// overwriteRedirect refuses a redirect that truncates an existing file
// (>, >|, &>, <>); appending (>>, &>>) and duplicating (2>&1) are left.
func overwriteRedirect(r, cwd string) string {
	i := strings.IndexAny(r, "<>")
	if i < 0 {
		return ""
	}
	op := r[i:]
	switch {
	case strings.HasPrefix(op, ">>"), strings.HasPrefix(op, "<<"), strings.HasPrefix(op, "<&"):
		return ""
	case strings.HasPrefix(op, "<") && !strings.HasPrefix(op, "<>"):
		return ""
	}
	t := redirectTarget(r)
	if t == "" {
		return ""
	}
	if strings.HasPrefix(op, ">&") && (t == "-" || strings.Trim(t, "0123456789") == "") {
		return "" // duplicating a descriptor (2>&1), not a file
	}
	return existing(cwd, t, "redirect "+strings.TrimSpace(r[:i+1]))
}

// copyBound refuses a cp, mv, install, ln -f or rsync whose destination
// exists (a file it would replace, or a file of the same name inside a
// destination directory; with -T the destination itself, and for rsync's
// "dir/" the source directory's entries).
func copyBound(name string, args []string, cwd string) string {
	if name == "ln" && !hasFlag(args, "f", "--force") {
		return ""
	}
	if name == "rsync" && hasPrefixAny(args, "--del", "--remove-source-files", "--remove-sent-files") {
		return "deletes files (rsync --delete)"
	}
	if name != "rsync" && name != "ln" && shortBefore(args, 'n', "tSmog", "--no-clobber") {
		return ""
	}
	valued := []string{"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"}
	if name == "rsync" {
		valued = []string{"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from",
			"--files-from", "-T", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "--chmod", "-B", "--block-size",
			"--partial-dir", "--backup-dir", "--suffix", "--log-file", "--password-file", "--port", "-@", "--modify-window"}
	}
	target, hasTarget := targetDirectory(name, args)
	ops := operands(args, valued)
	srcs := ops
	if !hasTarget {
		if len(ops) < 2 {
			return ""
		}
		target, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	}
	if cwd == "" || globby(target) {
		return existing(cwd, target, name)
	}
	dst := target
	if !filepath.IsAbs(dst) {
		dst = filepath.Join(cwd, dst)
	}
	noDir := !hasTarget && (name != "rsync" && hasFlag(args, "T", "--no-target-directory") || name == "ln" && hasFlag(args, "n", "--no-dereference"))
	fi, err := os.Stat(dst)
	if err != nil || !fi.IsDir() || noDir {
		return existing(cwd, target, name)
	}
	for _, s := range srcs {
		if name == "rsync" && (strings.HasSuffix(s, "/") || strings.HasSuffix(s, "/.")) {
			if why := contentsOnto(cwd, s, target); why != "" {
				return why
			}
			continue
		}
		if why := existing(cwd, filepath.Join(target, filepath.Base(s)), name); why != "" {
			return why
		}
	}
	return ""
}

// shortBefore reports whether args (up to "--") carry the long option or
// the short letter c as an option of its own: in a cluster, before any of
// the letters in valued, which take the rest as their value (-tdir).
func shortBefore(args []string, c byte, valued, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			if n, _, _ := strings.Cut(a, "="); abbreviates(n, []string{long}) {
				return true
			}
			continue
		}
		for j := 1; j < len(a) && a[0] == '-'; j++ {
			if a[j] == c {
				return true
			}
			if strings.IndexByte(valued, a[j]) >= 0 {
				break
			}
		}
	}
	return false
}

// targetDirectory returns the value of -t DIR, -tDIR, --target-directory
// DIR or =DIR (any prefix of it), which cp, mv, install and ln take
// (rsync's -t keeps times).
func targetDirectory(name string, args []string) (string, bool) {
	if name == "rsync" {
		return "", false
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		n, v, eq := strings.Cut(a, "=")
		switch {
		case strings.HasPrefix(a, "--") && abbreviates(n, []string{"--target-directory"}):
			if eq {
				return v, true
			}
			if i+1 < len(args) {
				return args[i+1], true
			}
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if j := strings.IndexByte(a, 't'); j > 0 && !strings.ContainsAny(a[1:j], "Smog") {
				if j+1 < len(a) {
					return a[j+1:], true
				}
				if i+1 < len(args) {
					return args[i+1], true
				}
			}
		}
	}
	return "", false
}

// contentsOnto refuses copying the entries of directory src (rsync's
// trailing slash) into target when one of them exists there.
func contentsOnto(cwd, src, target string) string {
	dir := src
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "copies the contents of " + src + ", which cannot be listed (" + err.Error() + ")"
	}
	for _, e := range entries {
		if why := existing(cwd, filepath.Join(target, e.Name()), "rsync"); why != "" {
			return why
		}
	}
	return ""
}

// removeBound allows rm/unlink only of files git holds unchanged (in HEAD,
// the index and the work tree alike): those git restores. Anything else —
// untracked, ignored, changed, missing, a pattern, after a cd the checks
// cannot follow, or when git cannot answer — is refused.
func removeBound(name string, args []string, cwd string, g *gitState) string {
	ops := operands(args, nil)
	if len(ops) == 0 {
		return ""
	}
	if cwd == "" {
		return "removes files after a cd the checks cannot follow (" + name + ")"
	}
	for _, p := range ops {
		if globby(p) {
			return "removes a pattern the checks cannot resolve (" + name + " " + p + ")"
		}
	}
	if err := g.unchanged(cwd, ops); err != nil {
		return "removes what git cannot restore (" + name + "): " + err.Error()
	}
	return ""
}

// dataScriptWords name package scripts for data or deployment operations:
// the code cannot read a script, but a migrate, seed, deploy or reset
// script is the project's own word that it acts on data or outside.
var dataScriptWords = []string{"migrat", "seed", "deploy", "release", "publish", "drop", "reset", "clean", "purge",
	"destroy", "wipe", "prune", "rollback", "nuke", "truncate", "delete", "remove", "flush", "upload", "sync", "db:"}

// scriptBound refuses a package script (npm run X, yarn X, pnpm X) named
// for a data or deployment operation.
func scriptBound(name string, args []string) string {
	ops := operands(args, nil)
	if len(ops) == 0 {
		return ""
	}
	script := ops[0]
	if (script == "run" || script == "run-script" || script == "exec") && len(ops) > 1 {
		script = ops[1]
	}
	s := strings.ToLower(script)
	for _, w := range dataScriptWords {
		if strings.Contains(s, w) {
			return "runs a package script named for a data or deployment operation (" + name + " " + script + ")"
		}
	}
	return ""
}

// tarBound: extracting (-x, --extract, --get, and the old-style "xf") may
// replace any file the archive names, so it is held unless old files are
// kept (-k, --keep-old-files, --skip-old-files); creating writes the
// archive file, which must not exist.
func tarBound(args []string, cwd string) string {
	extract, file := false, ""
	for i, a := range args {
		switch {
		case a == "--extract" || a == "--get" || strings.HasPrefix(a, "--extract") && len(a) > 4:
			extract = true
		case i == 0 && !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "x"):
			extract = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'x'):
			extract = true
		}
		if strings.HasPrefix(a, "--file=") {
			file = a[len("--file="):]
		} else if (a == "--file" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "f") || i == 0 && !strings.HasPrefix(a, "-") && strings.HasSuffix(a, "f")) && i+1 < len(args) {
			file = args[i+1]
		}
	}
	if hasFlag(args, "IF", "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
		"--new-volume-script", "--rsh-command", "--rmt-command") {
		return "runs a command given in its arguments (tar)"
	}
	if hasFlag(args, "", "--remove-files", "--unlink-first", "--recursive-unlink", "--overwrite") {
		return "removes or overwrites files (tar --remove-files, --unlink-first, --overwrite)"
	}
	if extract {
		if hasFlag(args, "k", "--keep-old-files", "--skip-old-files") {
			return ""
		}
		return "extracts an archive over files it may replace (tar -x)"
	}
	if file != "" && hasFlag(args, "c", "--create") {
		return existing(cwd, file, "tar -c")
	}
	return ""
}

// unzipBound: unzip replaces files (-o, or when it cannot prompt); it is
// left only with -n (never overwrite), -l/-t/-v/-p/-Z (list, test, print)
// or into a directory (-d) that does not exist yet.
func unzipBound(args []string, cwd string) string {
	if hasFlag(args, "nltvpZ", "") {
		return ""
	}
	for i, a := range args {
		if a == "-d" && i+1 < len(args) {
			if why := existing(cwd, args[i+1], "unzip -d"); why == "" {
				return ""
			}
		}
	}
	return "extracts an archive over files it may replace (unzip)"
}

// zipBound: zip moves files into the archive (-m deletes them), runs a
// test command (-TT), deletes entries (-d) or updates an archive that
// exists in place; a new archive is left.
func zipBound(args []string, cwd string) string {
	if hasFlag(args, "md", "--move", "--delete", "--unzip-command", "-TT") || contains(args, "-TT") {
		return "removes files, deletes archive entries or runs a command (zip -m, -d, -TT)"
	}
	ops := operands(args, []string{"-b", "-n", "-t", "-tt", "-O", "--output-file", "-Z", "-P", "-s", "-sp", "-x", "-i"})
	for i, a := range args {
		if (a == "-O" || a == "--output-file") && i+1 < len(args) {
			return existing(cwd, args[i+1], "zip "+a)
		}
	}
	if len(ops) == 0 || ops[0] == "-" {
		return ""
	}
	arc := ops[0]
	if path.Ext(arc) == "" {
		arc += ".zip"
	}
	return existing(cwd, arc, "zip")
}

// outputBound refuses an output file option onto a file that exists:
// sort -o (but for sorting a file onto itself), uniq's output operand,
// patch -o, gpg -o, openssl -out.
func outputBound(name string, args []string, cwd string) string {
	var out string
	var valued []string
	switch name {
	case "sort":
		valued = []string{"-o", "--output", "-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory", "--parallel", "--batch-size", "--files0-from", "--sort", "--random-source", "--compress-program"}
	case "patch":
		valued = []string{"-o", "--output", "-p", "-d", "--directory", "-i", "--input", "-r", "--reject-file", "-D", "-F", "-z", "-B", "-Y", "-V"}
	case "gpg", "gpg2":
		valued = []string{"-o", "--output", "-r", "--recipient", "-u", "--local-user", "--homedir"}
	case "openssl":
		valued = []string{"-out", "-in", "-key", "-passin", "-passout"}
	case "uniq":
		valued = []string{"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"}
		if ops := operands(args, valued); len(ops) > 1 {
			return existing(cwd, ops[1], "uniq")
		}
		return ""
	}
	for i, a := range args {
		switch {
		case (a == "-o" || a == "--output" || a == "-out") && i+1 < len(args):
			out = args[i+1]
		case strings.HasPrefix(a, "--output="):
			out = a[len("--output="):]
		case strings.HasPrefix(a, "-o") && len(a) > 2 && name != "openssl":
			out = a[2:]
		}
	}
	if out == "" {
		return ""
	}
	if name == "sort" {
		if ops := operands(args, valued); len(ops) == 1 && ops[0] == out {
			return "" // sorts a file onto itself
		}
	}
	return existing(cwd, out, name+" -o")
}
