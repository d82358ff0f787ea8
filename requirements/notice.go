package requirements

import (
	"errors"
	"fmt"
	"strings"
)

// Notice is the one sentence every command that loads configuration prints
// on stderr when the requirements deployed on this machine are not the ones
// in force: it names the file, says what is wrong and what to do. It is ""
// when the file verified or no trusted key is configured.
func (r *Result) Notice() string {
	file := orDefault(r.Path, "(no path)")
	switch r.Status {
	case ExpiredWarn:
		return fmt.Sprintf("requirements %s is in force although %s", file, oneLine(r.Reason))
	case LastKnownGood:
		return fmt.Sprintf("requirements %s %s; the last-known-good policy (serial %d, verified earlier on this machine) stays in force: ask your administrator to redeploy requirements.json (check it with 'oceanadmin verify')",
			file, r.what(), r.Policy.Serial)
	case Refused:
		return fmt.Sprintf("requirements %s %s, and no last-known-good policy exists on this machine, so sessions are refused (exit 4): ask your administrator to deploy a requirements.json signed by a trusted key (check it with 'oceanadmin verify')",
			file, r.what())
	}
	return ""
}

// what says what is wrong with the file, as the rest of a sentence that
// starts with its path.
func (r *Result) what() string {
	switch {
	case errors.Is(r.Err, ErrMissing):
		return "is missing although trusted keys are configured (" + r.TrustSource + ")"
	case errors.Is(r.Err, ErrUnreadable):
		return "cannot be read (" + causeOf(r.Err, r.Path) + ")"
	}
	return "was refused (" + causeOf(r.Err, r.Path) + ")"
}

// causeOf is err on one line without the "requirements: FILE: " or
// "read requirements FILE: " prefix the sentence already says.
func causeOf(err error, file string) string {
	if err == nil {
		return "no reason recorded"
	}
	s := oneLine(err.Error())
	for _, p := range []string{"requirements: " + file + ": ", "requirements: " + file + " (payload): ", "read requirements " + file + ": "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// oneLine joins a multi-line message (a list of schema violations) with
// "; ".
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
