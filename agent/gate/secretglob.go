package gate

import (
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/shellguard"
	"github.com/oceancode/oceancode/internal/secret"
)

// secretGlob returns a secrets file that one of the command's glob words
// expands to in dir (a segment's text and the file), or "" — for the globs
// the shell guard, which reads no files, cannot judge by their text:
// `cat *` or `grep KEY c*` where the directory holds prod.env. A glob is
// expanded as bash expands it (a leading '.' is matched only explicitly),
// relative to the call's working directory.
func secretGlob(sr *shellguard.Result, dir string) (seg, file string) {
	for i := range sr.Segments {
		s := &sr.Segments[i]
		if len(s.Argv) < 2 || shellguard.NamesOnly(s.Argv) {
			continue
		}
		for _, w := range s.Argv[1:] {
			if !hasGlob(w) || strings.ContainsAny(w, "$`") {
				continue
			}
			pattern := w
			if !filepath.IsAbs(pattern) {
				if dir == "" {
					continue
				}
				pattern = filepath.Join(dir, pattern)
			}
			matches, err := filepath.Glob(pattern)
			if err != nil {
				continue
			}
			dot := strings.HasPrefix(filepath.Base(w), ".")
			for _, m := range matches {
				b := filepath.Base(m)
				if strings.HasPrefix(b, ".") && !dot {
					continue // bash's * does not match a dotfile
				}
				if secret.FileName(b) {
					return strings.Join(s.Argv, " "), b
				}
			}
		}
	}
	return "", ""
}

// hasGlob reports whether w holds a glob metacharacter (* ? [): the cheap
// first test for every word of every bash call (strings.ContainsAny builds
// its set on each call).
func hasGlob(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c == '*' || c == '?' || c == '[' {
			return true
		}
	}
	return false
}
