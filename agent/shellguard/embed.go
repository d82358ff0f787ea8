package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands hidden in files: the guard classifies each as a script, so a
// floor command there is floor (echo 'rm -rf /' > x.sh; bash x.sh,
// crontab <<< '* * * * * rm -rf /'). Options and variables a program runs
// are in runs.go.

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
