package shellguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stricter: wrappers under which a safe command asks on purpose.
var stricter = map[string]bool{"sudo": true, "doas": true, "xargs": true}

// TestRunTableRows: every row of runTable, built into commands carrying a
// floor command, is floor with the empty config and under an
// allow-everything rule (bypassPermissions); a benign payload is a segment
// classified as it is alone; a deny rule for the payload denies the
// command; a payload the guard cannot see or parse is never allowed.
func TestRunTableRows(t *testing.T) {
	empty := newTest(t, Config{})
	bypass := newTest(t, Config{Allow: []Rule{{Pattern: "*"}}})
	deny := newTest(t, Config{Deny: []Rule{{Pattern: "touch:*"}}})
	alone := empty.Classify("git status", "").Verdict
	for _, r := range runTable {
		cmds := r.examples("rm -rf /")
		if len(cmds) == 0 {
			t.Errorf("row %q %q builds no command", r.cmd, r.opt)
		}
		for _, cmd := range cmds {
			if got := empty.Classify(cmd, ""); got.Verdict != Floor {
				t.Errorf("row %s %s: Classify(%q) = %v (%s), want floor", r.cmd, r.opt, cmd, got.Verdict, got.Reason)
			}
			if got := bypass.Classify(cmd, ""); got.Verdict != Floor {
				t.Errorf("row %s %s: under allow(*) Classify(%q) = %v, want floor", r.cmd, r.opt, cmd, got.Verdict)
			}
		}
		for _, cmd := range r.examples("git status") {
			res := empty.Classify(cmd, "")
			found := false
			for _, s := range res.Segments {
				if strings.Join(s.Argv, " ") == "git status" && s.Verdict == alone {
					found = true
				}
			}
			if !found && stricter[r.cmd] && len(res.Segments) == 1 && res.Verdict == Ask {
				found = true // sudo, doas, xargs: never safe by design (docs/shellguard.md)
			}
			if !found {
				t.Errorf("row %s %s: Classify(%q) has no segment \"git status\" classified %v: %+v", r.cmd, r.opt, cmd, alone, res.Segments)
			}
		}
		for _, cmd := range r.examples("touch x") {
			if got := deny.Classify(cmd, ""); got.Verdict != Deny {
				t.Errorf("row %s %s: with deny touch:*, Classify(%q) = %v (%s), want deny", r.cmd, r.opt, cmd, got.Verdict, got.Reason)
			}
		}
		unknown := append(r.examples(`$X`), r.examples(`$(cat f)`)...)
		if r.cmd != "env" { // env -S splits words itself: "ls (" is ls of a file named "("
			unknown = append(unknown, r.examples(`ls (`)...)
		}
		for _, cmd := range unknown {
			if got := bypass.Classify(cmd, ""); got.Verdict.Allowed() {
				t.Errorf("row %s %s: under allow(*) Classify(%q) = %v, want not allowed (the payload is not known or does not parse)", r.cmd, r.opt, cmd, got.Verdict)
			}
		}
	}
}

// docRow renders a runTable row as its line of the table in
// docs/shellguard.md.
func docRow(r runRow) string {
	code := func(s string) string { return "`" + s + "`" }
	var opts []string
	if r.opt != "" {
		for _, o := range strings.Split(r.opt, ",") {
			o = strings.TrimSuffix(o, "?")
			switch {
			case r.kind == runConfig || r.kind == runEnv || o == "+" || strings.HasPrefix(o, "-"):
			case len(o) == 1:
				o = "-" + o
			default:
				o = "--" + o
			}
			opts = append(opts, code(o))
		}
	}
	what := map[runKind]string{
		runOpt: "the option's value is shell code", runArgs: "the operands are a command and its arguments",
		runLine: "the operands, joined, are shell code", runUntil: "the words up to `;` or `+` are a command",
		runFlagLine: "with the option, the command words are run by a shell", runConfig: "git runs the value (`git -c`, `--config-env`, `git config`, `GIT_CONFIG_*`)",
		runEnv:  "the value is run as a command (set before a command, through `env`/`sudo`, or exported)",
		runPeel: "a wrapper, peeled: its command is the segment", runRest: "the words after the option are a command",
	}[r.kind]
	if r.skip > 0 {
		what += " after " + map[int]string{1: "one operand", 2: "two operands"}[r.skip]
	}
	if r.marks != "" {
		what += ", after " + code(strings.ReplaceAll(r.marks, "|", "` or `"))
	}
	if strings.HasSuffix(r.opt, "?") {
		what += " (an optional value: stuck only)"
	}
	if r.note != "" {
		what += "; " + r.note
	}
	return "| " + code(strings.ReplaceAll(r.cmd, "|", `\|`)) + " | " + strings.Join(opts, ", ") + " | " + what + " |"
}

// TestRunTableDocumented: docs/shellguard.md shows every row as docRow
// renders it (go test -run TestRunTableDocumented -v prints the table).
func TestRunTableDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "shellguard.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runTable {
		line := docRow(r)
		t.Log(line)
		if !strings.Contains(string(doc), line+"\n") {
			t.Errorf("docs/shellguard.md lacks the row %s", line)
		}
	}
}
