package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands hidden in other programs' options, variables and files: the
// guard classifies each as a script, so a floor command there is floor
// (git -c core.pager='rm -rf /' log, script -c 'rm -rf /',
// echo 'rm -rf /' > x.sh; bash x.sh, crontab <<< '* * * * * rm -rf /').

// commandEnv are variables whose value a program runs as a shell command.
func commandEnv(name string) bool {
	switch name {
	case "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "GIT_EXTERNAL_DIFF",
		"PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "RSYNC_RSH":
		return true
	}
	return false
}

// gitCommandKey: git configuration whose value git runs as a command.
func gitCommandKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "core.pager", "core.sshcommand", "core.editor", "core.fsmonitor", "core.askpass", "sequence.editor", "diff.external",
		"gpg.program", "credential.helper", "core.hookspath", "uploadpack.packobjectshook":
		return true
	}
	return strings.HasPrefix(k, "pager.") || strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command") ||
		strings.HasPrefix(k, "filter.") && (strings.HasSuffix(k, ".clean") || strings.HasSuffix(k, ".smudge") || strings.HasSuffix(k, ".process"))
}

// optCode lists the option values of argv that name's program runs as a
// shell command.
func optCode(name string, argv []word) []string {
	var out []string
	val := func(j int, shorts []string, longs ...string) (string, bool) {
		v := argv[j].val
		for _, s := range shorts {
			if v == s && j+1 < len(argv) && argv[j+1].known {
				return argv[j+1].val, true
			}
		}
		for _, l := range longs {
			if v == "--"+l && j+1 < len(argv) && argv[j+1].known {
				return argv[j+1].val, true
			}
			if strings.HasPrefix(v, "--"+l+"=") {
				return v[len(l)+3:], true
			}
		}
		return "", false
	}
	for j := 1; j < len(argv); j++ {
		if !argv[j].known {
			continue
		}
		var c string
		var ok bool
		switch name {
		case "script":
			c, ok = val(j, []string{"-c"}, "command")
		case "flock":
			c, ok = val(j, []string{"-c"}, "command")
		case "rsync":
			c, ok = val(j, []string{"-e"}, "rsh")
		case "tar":
			if v := argv[j].val; strings.HasPrefix(v, "--checkpoint-action=exec=") {
				c, ok = v[len("--checkpoint-action=exec="):], true
			} else {
				c, ok = val(j, []string{"-I"}, "to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command")
			}
		case "zip":
			c, ok = val(j, []string{"-TT"}, "unzip-command")
		case "vim", "vi", "nvim", "ex", "view", "gvim":
			if v := argv[j].val; strings.HasPrefix(v, "+!") {
				c, ok = v[2:], true
			} else if s, k := val(j, []string{"-c", "--cmd"}); k && strings.HasPrefix(strings.TrimLeft(s, ": "), "!") {
				c, ok = strings.TrimLeft(s, ": ")[1:], true
			}
		case "git", "hub":
			if argv[j].val == "-c" && j+1 < len(argv) && argv[j+1].known {
				if k, v, has := strings.Cut(argv[j+1].val, "="); has && gitCommandKey(k) {
					c, ok = strings.TrimPrefix(v, "!"), true
				}
			}
		case "less", "more":
			c, ok = val(j, nil, "lesskey-src")
			ok = false
		}
		if ok && c != "" {
			out = append(out, c)
		}
	}
	return out
}

// embedded classifies the commands argv carries in options (optCode).
func (w *walker) embedded(name string, argv []word, inner func(string) ctx) {
	for _, c := range optCode(name, argv) {
		w.code(c, inner(name+" option"), false)
	}
}

// startupFile: shell startup files; text written there runs in every new
// shell, so it is classified like a script of this command.
func startupFile(p string) bool {
	switch path.Base(p) {
	case ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".kshrc", ".bash_logout", ".login", ".cshrc", ".tcshrc":
		return true
	}
	return strings.HasPrefix(p, "/etc/profile") || strings.HasPrefix(p, "/etc/bash") || strings.HasPrefix(p, "/etc/zsh") || strings.HasPrefix(p, "/etc/cron") || strings.HasPrefix(p, "/var/spool/cron")
}

// noteWritten remembers the text a static command (echo, printf, cat of a
// here-document) writes to a file, so running that file later in the same
// command classifies the text (echo 'rm -rf /' > x.sh; bash x.sh); text
// written to a shell startup file or a crontab is classified at once.
func (w *walker) noteWritten(ce *syntax.CallExpr, r stmtRedirs, x ctx, appendTo bool) {
	if r.write == "" || len(ce.Args) == 0 || len(ce.Assigns) > 0 {
		return
	}
	n, ok := litValue(ce.Args[0])
	if !ok || !staticProgram(n) {
		return
	}
	args, ok := w.staticArgs(ce.Args)
	if !ok {
		return
	}
	in, has := x.stdin, x.hasStdin
	if r.hasStdin {
		in, has = r.stdin, true
	}
	out, ok := filterOut(args, in, has)
	if !ok {
		return
	}
	p := w.resolve(r.write)
	if p == "" {
		return
	}
	if w.written == nil {
		w.written = map[string]string{}
	}
	if appendTo {
		w.written[p] += out
	} else {
		w.written[p] = out
	}
	if startupFile(p) {
		w.code(cronCode(p, out), ctx{wrappers: append(append([]string(nil), x.wrappers...), "written to "+p)}, false)
	}
}

// cronCode strips the schedule fields of crontab lines (five fields or an
// @keyword); other text is returned as is.
func cronCode(p, text string) string {
	if !strings.Contains(p, "cron") && p != "crontab" {
		return text
	}
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		skip := 5
		if strings.HasPrefix(f[0], "@") {
			skip = 1
		} else if strings.Contains(line, "=") && !strings.ContainsAny(f[0], "*0123456789") {
			continue // NAME=value
		}
		if strings.HasPrefix(p, "/etc/cron") {
			skip++ // the user field
		}
		if len(f) <= skip {
			continue
		}
		b.WriteString(strings.Join(f[skip:], " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// writtenCode is the text a file the command wrote holds, if the guard
// saw it written.
func (w *walker) writtenCode(a word) (string, bool) {
	if len(w.written) == 0 || !a.known {
		return "", false
	}
	p := w.resolve(a.val)
	if p == "" {
		return "", false
	}
	s, ok := w.written[p]
	return s, ok
}
