package shellguard

// The floor, entry point: floor runs every floor rule on a peeled command
// (and on what a wrapper or stdin feeds it); floorCmd dispatches on the
// program name to the rule families in floor_*.go.

import (
	"strings"
)

// floor checks a peeled command against the dangerous floor. It returns the
// shape and the reason's tail ("removes the filesystem root"), or "".
func (w *walker) floor(argv []word, x ctx, p peeled, cwd string) (string, string) {
	if len(argv) == 0 {
		return "", ""
	}
	if argv[0].dl {
		return ShapePipeToShell, "runs a command line that comes from a download or decoder"
	}
	if s, why := w.floorCmd(argv, cwd); s != "" {
		return s, why
	}
	if a := argv[0]; !a.known && a.altOK && a.alt != "" && a.alt != anyValue && !strings.Contains(a.alt, " ") {
		// ${X:-rm} -rf /: the command name when the parameter is unset.
		alt := make([]word, len(argv))
		copy(alt, argv)
		alt[0] = word{val: a.alt, text: a.text, known: true}
		if s, why := w.floorCmd(alt, cwd); s != "" {
			return s, why
		}
	}
	n := strings.ToLower(cmdName(argv[0]))
	runner := isShell(n) || isInterpreter(n) || n == "eval" || n == "source" || n == "."
	if x.stdinDL {
		if (isShell(n) || isInterpreter(n)) && readsProgramFromStdin(argv) {
			return ShapePipeToShell, "runs a script piped from a download or decoder"
		}
		if p.xargs && runner {
			return ShapePipeToShell, "runs code xargs reads from a download or decoder"
		}
		if n == "sudo" && hasOpt(argv, "si", "shell", "login") || n == "doas" && hasOpt(argv, "s") || n == "su" && !hasOpt(argv, "c", "command") {
			return ShapePipeToShell, "runs a shell on a script piped from a download or decoder"
		}
		if (n == "deno" || n == "bun") && len(argv) > 2 && argv[1].val == "run" && hasWord(argv[2:], "-") {
			return ShapePipeToShell, "runs a program piped from a download or decoder (" + n + " run -)"
		}
		if why := stdinCode(n, argv); why != "" {
			return ShapePipeToShell, why
		}
	}
	if x.stdinTree != "" && n == "parallel" {
		// find / | parallel rm -rf: parallel runs its command on each line.
		for j := 1; j < len(argv); j++ {
			switch strings.ToLower(cmdName(argv[j])) {
			case "rm", "unlink", "shred", "rmdir", "mv":
				return ShapeRmRoot, "removes what find lists under " + x.stdinTree + " (find | parallel " + argv[j].val + ")"
			case "chmod", "chown", "chgrp", "setfacl", "chattr":
				return ShapePermRoot, "changes everything find lists under " + x.stdinTree + " (find | parallel " + argv[j].val + ")"
			}
		}
	}
	if x.stdinTree != "" && p.xargs {
		switch n {
		case "rm", "unlink", "shred", "rmdir":
			return ShapeRmRoot, "removes what find lists under " + x.stdinTree + " (find | xargs " + n + ")"
		case "chmod", "chown", "chgrp", "setfacl", "chattr":
			return ShapePermRoot, "changes everything find lists under " + x.stdinTree + " (find | xargs " + n + ")"
		}
	}
	if isInterpreter(n) && x.hasStdin && readsProgramFromStdin(argv) && forkLoop(x.stdin) {
		return ShapeForkBomb, "forks in an endless loop (a fork bomb)"
	}
	if f := w.runsDownloaded(argv, n, cwd); f != "" {
		return ShapePipeToShell, "runs " + f + ", downloaded earlier in the same command"
	}
	if p.uncertain || execWrapper(n) {
		// A wrapper option we do not know may have taken the next word as
		// its value, or a program that runs its arguments as a command
		// (chroot DIR CMD, flock FILE CMD, taskset MASK CMD, strace CMD):
		// try every later word as the command.
		for j := 1; j < len(argv); j++ {
			if s, why := w.floorCmd(argv[j:], cwd); s != "" {
				return s, why
			}
		}
	}
	return "", ""
}

// floorCmd checks one command line (argv[0] is the program) against the
// floor rules keyed by program name. It returns the shape and the reason's
// tail, or "".
func (w *walker) floorCmd(argv []word, cwd string) (string, string) {
	name := strings.ToLower(cmdName(argv[0]))
	if isShell(name) || isInterpreter(name) || name == "source" || name == "." || name == "eval" {
		for _, a := range argv[1:] {
			if a.dl {
				return ShapePipeToShell, "runs a downloaded or decoded script"
			}
		}
	}
	switch {
	case name == "":
		return "", ""
	case name == "rm":
		return shaped(ShapeRmRoot, w.rmRoot(argv, cwd))
	case name == "find":
		return w.findRoot(argv, cwd)
	case name == "rsync":
		return shaped(ShapeRmRoot, w.rsyncDelete(argv, cwd))
	case name == "gh" && len(argv) > 2 && argv[1].val == "repo" && argv[2].val == "sync" && hasOpt(argv[2:], "", "force"):
		return ShapeGitForcePush, "force-pushes (gh repo sync --force hard-resets the destination branch)"
	case name == "git" || name == "hub" || name == "git-push" || name == "git-send-pack":
		return w.floorGit(argv, cwd)
	case name == "dd":
		return ddDevice(argv, cwd)
	case name == "chmod" || name == "chown" || name == "chgrp" || name == "setfacl" || name == "chattr":
		return w.permRoot(name, argv, cwd)
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "mkdosfs" || name == "mkntfs" || name == "mkexfatfs":
		return ShapeMkfs, "formats a filesystem"
	case name == "wipefs":
		if hasOpt(argv, "ao", "all", "offset") {
			return ShapeMkfs, "wipes filesystem signatures"
		}
	case name == "parallel" || name == "sem":
		return w.floorParallel(argv, cwd)
	case name == "env":
		return w.floorEnvSplit(argv, cwd)
	case name == "mv":
		return w.floorMv(name, argv, cwd)
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		return w.interpreterFloor(argv, cwd)
	case isInterpreter(name):
		for _, a := range argv[1:] {
			if a.known && forkLoop(a.val) {
				return ShapeForkBomb, "forks in an endless loop (a fork bomb)"
			}
		}
		return w.interpreterFloor(argv, cwd)
	case name == "nc" || name == "ncat" || name == "netcat" || name == "socat":
		return shaped(ShapePipeToShell, netExec(name, argv))
	default:
		return shaped(ShapeDeviceWrite, w.deviceTool(name, argv, cwd))
	}
	return "", ""
}

// shaped pairs a rule's reason with its shape: no reason, no shape.
func shaped(shape, why string) (string, string) {
	if why == "" {
		return "", ""
	}
	return shape, why
}

// floorOf classifies a command line the checked command runs (an alias, a
// parallel job, an env -S string, a string an interpreter hands to the
// shell) and returns the shape of its first floor segment, or "".
func (w *walker) floorOf(line, cwd string) string {
	if r := w.c.Classify(line, cwd); r.Verdict == Floor {
		for _, s := range r.Segments {
			if s.Verdict == Floor {
				return s.Shape
			}
		}
	}
	return ""
}
