package shellguard

import (
	"strings"
	"testing"
)

// rowCommands builds, from one runTable row, commands that carry payload
// (a command line) in every spelling the row names: each spelling of the
// program and subcommand, each option in short, stuck, long, --opt=value
// and single-dash forms.
func rowCommands(r runRow, payload string) []string {
	q := "'" + strings.ReplaceAll(payload, "'", `'\''`) + "'"
	var out []string
	progs := spellings(r.cmd)
	val := payload
	if r.marks != "" {
		m := strings.Split(r.marks, "|")[0]
		val = m + payload
		if strings.HasSuffix(m, "(") {
			val = m + `"` + payload + `")`
		}
	}
	qv := "'" + strings.ReplaceAll(val, "'", `'\''`) + "'"
	skip := strings.Repeat(" x", r.skip)
	for _, p := range progs {
		switch r.kind {
		case runOpt, runFlagLine, runRest, runUntil:
			for _, o := range strings.Split(r.opt, ",") {
				if n, ok := strings.CutSuffix(o, "?"); ok {
					// an optional value: only stuck
					if len(n) == 1 {
						out = append(out, p+" -"+n+qv)
					} else {
						out = append(out, p+" --"+n+"="+qv)
					}
					continue
				}
				switch {
				case o == "+":
					out = append(out, p+" '+"+strings.Trim(qv, "'")+"'")
				case strings.HasPrefix(o, "-"):
					out = append(out, p+" "+o+" "+qv)
				case len(o) == 1:
					out = append(out, p+" -"+o+" "+qv)
					if r.kind == runOpt {
						out = append(out, p+" -"+o+qv)
					}
				default:
					out = append(out, p+" --"+o+" "+qv)
					if r.kind == runOpt {
						out = append(out, p+" --"+o+"="+qv)
					}
				}
			}
			if r.kind == runFlagLine {
				for i := range out {
					out[i] += skip
				}
			}
			if r.kind == runRest || r.kind == runUntil {
				// The command as words, not one quoted word.
				for i := range out {
					out[i] = strings.Replace(out[i], qv, payload, 1)
					if r.kind == runUntil {
						out[i] += ` \;`
					}
				}
			}
		case runArgs, runPeel:
			out = append(out, p+skip+" "+payload)
			if r.kind == runArgs && r.skip == 0 {
				out = append(out, p+" -- "+payload)
			}
		case runLine:
			out = append(out, p+skip+" "+q, p+skip+" "+payload)
		case runConfig:
			k := strings.ReplaceAll(r.opt, "*", "x")
			out = append(out,
				"git -c "+k+"="+qv+" log",
				"X="+qv+" git --config-env="+k+"=X log",
				"git config "+k+" "+qv,
				"git config --global "+k+" "+qv,
				"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="+k+" GIT_CONFIG_VALUE_0="+qv+" git log",
				`GIT_CONFIG_PARAMETERS="'`+k+"="+strings.Trim(qv, "'")+`'" git log`)
			return out
		case runEnv:
			return []string{
				r.opt + "=" + qv + " " + p,
				"env " + r.opt + "=" + qv + " " + p,
				"sudo " + r.opt + "=" + qv + " " + p,
				"export " + r.opt + "=" + qv + "; " + p,
				r.opt + "=" + qv + "; " + p,
			}
		}
	}
	return out
}

// spellings expands "a|b c|d" into every combination ("a c", "a d", …).
func spellings(cmd string) []string {
	out := []string{""}
	for _, w := range strings.Fields(cmd) {
		var next []string
		for _, pre := range out {
			for _, alt := range strings.Split(w, "|") {
				next = append(next, strings.TrimSpace(pre+" "+alt))
			}
		}
		out = next
	}
	return out
}

// stricter: wrappers under which a safe command asks on purpose.
var stricter = map[string]bool{"sudo": true, "doas": true, "xargs": true}

// TestRunTableRows: every row of runTable, built into commands carrying a
// floor command, is floor with the empty config and under an
// allow-everything rule (bypassPermissions); a benign payload is a segment
// classified as it is alone; a deny rule for the payload denies the
// command; a payload the guard cannot see is never allowed.
func TestRunTableRows(t *testing.T) {
	empty := newTest(t, Config{})
	bypass := newTest(t, Config{Allow: []Rule{{Pattern: "*"}}})
	deny := newTest(t, Config{Deny: []Rule{{Pattern: "touch:*"}}})
	alone := empty.Classify("git status", "").Verdict
	for _, r := range runTable {
		cmds := rowCommands(r, "rm -rf /")
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
		for _, cmd := range rowCommands(r, "git status") {
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
		for _, cmd := range rowCommands(r, "touch x") {
			if got := deny.Classify(cmd, ""); got.Verdict != Deny {
				t.Errorf("row %s %s: with deny touch:*, Classify(%q) = %v (%s), want deny", r.cmd, r.opt, cmd, got.Verdict, got.Reason)
			}
		}
		for _, cmd := range rowCommands(r, `$X`) {
			if got := bypass.Classify(cmd, ""); got.Verdict.Allowed() {
				t.Errorf("row %s %s: under allow(*) Classify(%q) = %v, want not allowed (the payload is not known)", r.cmd, r.opt, cmd, got.Verdict)
			}
		}
	}
}
