package shellguard

import (
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var helpLong = regexp.MustCompile(`(?:^|[\s,\[])--([a-z0-9][a-z0-9-]*)`)

// TestTablesComplete: a table that resolves abbreviations must know every
// long option the installed program has, or a prefix the program reads as
// another (maybe writing) option would resolve differently here. GNU
// programs are checked against --help, git's parse-options subcommands
// against --git-completion-helper-all.
func TestTablesComplete(t *testing.T) {
	env := []string{"LC_ALL=C", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir()}
	check := func(tb *optTable, argv ...string) {
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Logf("%s: not installed, not checked", argv[0])
			return
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		var missing []string
		seen := map[string]bool{}
		for _, m := range helpLong.FindAllStringSubmatch(string(out), -1) {
			n := strings.TrimRight(m[1], "-")
			if seen[n] {
				continue
			}
			seen[n] = true
			if _, ok := tb.exact(n); !ok {
				if tb.next != nil {
					// handed on to a parser that matches exactly (blame's
					// revision and diff options)
					if _, ok := tb.next.exact(strings.TrimPrefix(n, "no-")); ok {
						continue
					}
					if _, ok := tb.next.exact(n); ok {
						continue
					}
				}
				if tb.style.gitNeg {
					if _, ok := tb.exact(strings.TrimPrefix(n, "no-")); ok {
						continue
					}
				}
				missing = append(missing, n)
			}
		}
		if len(seen) == 0 && len(tb.names) > 0 {
			t.Errorf("%s: no options found in %q", tb.name, argv)
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("table %s lacks options of %v: %s", tb.name, argv, strings.Join(missing, " "))
		}
	}
	for name, tb := range tables {
		if !tb.style.abbrev || tb.style.gitNeg {
			continue
		}
		switch name {
		case "yq": // argparse; its --help lists jq's options differently
			continue
		}
		check(tb, name, "--help")
	}
	for name, tb := range gitTables {
		if !tb.style.gitNeg {
			continue
		}
		check(tb, append(append([]string{"git"}, strings.Fields(name)...), "--git-completion-helper-all")...)
	}
}
