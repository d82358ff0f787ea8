package glob

// The differential test: the matchers this package replaced, frozen as
// they were at 0e51826 (agent/childenv glob, agent/permission wildMatch,
// segMatch and pathMatch, policycheck.Glob, agent/shellguard globMatch,
// agent/tools globMatcher), and the inputs of their own tests. Each old
// matcher must agree with its replacement on its tests' inputs and on
// every pattern of every table crossed with every subject.

import (
	"path"
	"strings"
	"testing"
)

// oldChildenvGlob is agent/childenv's glob: '*' any run, '?' one byte.
func oldChildenvGlob(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			starP, starS = px, sx
			px++
		case px < len(pattern) && (pattern[px] == '?' || pattern[px] == s[sx]):
			px++
			sx++
		case starP >= 0:
			starS++
			px, sx = starP+1, starS
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// oldPermissionWild is agent/permission's wildMatch.
func oldPermissionWild(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			starP, starS = px, sx
			px++
		case px < len(pattern) && pattern[px] == s[sx]:
			px++
			sx++
		case starP >= 0:
			starS++
			px, sx = starP+1, starS
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// oldPolicycheckGlob is policycheck.Glob.
func oldPolicycheckGlob(pattern, s string) bool {
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// oldShellguardGlob is agent/shellguard's globMatch over the pattern's
// parts split on '*'.
func oldShellguardGlob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return s == parts[0]
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// oldSegMatch is agent/permission's segMatch.
func oldSegMatch(pattern, seg string) bool {
	if strings.ContainsAny(pattern, "?[\\") {
		ok, _ := path.Match(pattern, seg)
		return ok
	}
	return oldPermissionWild(pattern, seg)
}

// oldPermissionFile is agent/permission's compile and match for a file
// key's pattern: ok is false where compile refused the pattern.
func oldPermissionFile(pattern, subject string) (match, ok bool) {
	if pattern == "" || pattern == "*" {
		return true, true
	}
	p := strings.TrimPrefix(pattern, "./")
	if p == "**" || p == "" {
		return true, true
	}
	if strings.IndexByte(p, '/') < 0 {
		if _, err := path.Match(p, ""); err != nil {
			return false, false
		}
		return oldNameMatch(p, subject), true
	}
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if strings.Contains(s, "**") {
			return false, false
		}
		if _, err := path.Match(s, ""); err != nil {
			return false, false
		}
	}
	return oldPathMatch(segs, strings.TrimPrefix(subject, "./")), true
}

// oldPathMatch is agent/permission's pathMatch.
func oldPathMatch(segs []string, p string) bool {
	for i, s := range segs {
		if s == "**" {
			rest := segs[i+1:]
			if len(rest) == 0 {
				return true
			}
			for {
				if oldPathMatch(rest, p) {
					return true
				}
				j := strings.IndexByte(p, '/')
				if j < 0 {
					return false
				}
				p = p[j+1:]
			}
		}
		head, tail, more := p, "", false
		if j := strings.IndexByte(p, '/'); j >= 0 {
			head, tail, more = p[:j], p[j+1:], true
		}
		if !oldSegMatch(s, head) {
			return false
		}
		if !more {
			for _, r := range segs[i+1:] {
				if r != "**" {
					return false
				}
			}
			return true
		}
		p = tail
	}
	return false
}

// oldToolsGlob is agent/tools' compileGlob and globMatcher.match: ok is
// false where compileGlob refused the pattern.
func oldToolsGlob(pattern, name string) (match, ok bool) {
	pattern = strings.TrimPrefix(path.Clean(strings.ReplaceAll(pattern, "\\", "/")), "./")
	if pattern == "" || pattern == "." {
		return false, false
	}
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return false, false
		}
	}
	parts := strings.Split(name, "/")
	okj := make([]bool, len(parts)+1)
	okj[0] = true
	for _, s := range segs {
		next := make([]bool, len(parts)+1)
		if s == "**" {
			any := false
			for j := range okj {
				any = any || okj[j]
				next[j] = any
			}
		} else {
			for j := 1; j <= len(parts); j++ {
				if okj[j-1] {
					m, _ := path.Match(s, parts[j-1])
					next[j] = m
				}
			}
		}
		okj = next
	}
	return okj[len(parts)], true
}

// The old tests' inputs, pattern then subject.
var (
	childenvInputs = [][2]string{{"AWS_*", "AWS_X"}, {"AWS_*", "XAWS_X"}, {"*_ID", "AWS_ACCESS_KEY_ID"}, {"A?C", "ABC"}, {"A?C", "AC"}, {"*", ""},
		{"aws_*", "AWS_SECRET"}, {"GIT_ASKPASS_TOKEN_HELPER", "GIT_ASKPASS_TOKEN_HELPER"}}
	permissionWildInputs = [][2]string{{"*", ""}, {"a*", "a"}, {"a*b", "axxb"}, {"a*b", "axxbx"}, {"*a*b*", "xxaxxbxx"}, {"a**b", "ab"}, {"abc", "abc"}, {"abc", "ab"},
		{"npm run *", "npm run build"}, {"npm run *", "npm test"}, {"github/*", "github/create_issue"}, {"github/*", "gitlab/create_issue"},
		{"https://docs.example.com/*", "https://docs.example.com/a/b"}}
	permissionFileInputs = [][2]string{{"src/**", "src/a/b.go"}, {"src/**", "src"}, {"src/**", "srcx/a.go"}, {"src/*.go", "src/a.go"}, {"src/*.go", "src/a/b.go"},
		{"**/*.go", "a.go"}, {"**/*.go", "a/b/c.go"}, {"src/**/test/*.go", "src/x/y/test/a.go"}, {"src/**/test/*.go", "src/test/a.go"},
		{"src/**/test/*.go", "src/x/a.go"}, {"*.md", "README.md"}, {"*.md", "docs/guide.md"}, {"*.md", "README.mdx"},
		{"secrets", "config/secrets/key.pem"}, {"./src/**", "./src/a.go"}, {".oceancode/plans/*.md", ".oceancode/plans/p1.md"},
		{".oceancode/plans/*.md", ".oceancode/plans/sub/p1.md"}, {".oceancode/plans/*.md", "src/main.go"}, {"/tmp/**", "/tmp/x/y"},
		{"/tmp/**", "/var/tmp/x"}, {"*.go", "main.go"}, {"a*b*c", "aXbYc"}, {"[ab]*", "bcd"}, {"src/[", "src/["}, {"src/a**/b", "src/a/b"}, {"[", "["}}
	policycheckInputs = [][2]string{{"anthropic/claude-*", "anthropic/claude-sonnet-4-5"}, {"anthropic/claude-*", "anthropic/claude-"},
		{"anthropic/claude-*", "anthropic/claude"}, {"anthropic/claude-*", "xanthropic/claude-x"}, {"corp/*", "corp/qwen/qwen3"}, {"*", ""},
		{"", ""}, {"", "a"}, {"a*b*c", "aXbYbZc"}, {"a*b*c", "aXbYbZ"}, {"ci-*.example.com", "ci-12.example.com"},
		{"ci-*.example.com", "ci-12.example.org"}, {"**", "x"}, {"a?", "a?"}, {"a?", "ab"}, {"**a", "ba"}, {"a.b", "aXb"}}
	shellguardInputs = [][2]string{{"git * main", "git push origin main"}, {"git * main", "git main"}, {"*--force*", "git push --force-with-lease"},
		{"a*b*c", "abc"}, {"a*b*c", "acb"}, {"git *", "git log -1"}, {"npm run *", "npm run build"}}
	toolsInputs = [][2]string{{"**/*.go", "main.go"}, {"**/*.go", "a/b/c.go"}, {"a/**/c.go", "a/c.go"}, {"a/**/c.go", "a/x/y/c.go"},
		{"a/**/c.go", "b/x/c.go"}, {"*.go", "a/b.go"}, {"**", "a/b/c"}, {"a/**", "a/b/c"}, {"a/*/c", "a/b/c"}, {"a/*/c", "a/b/d/c"},
		{"./src/*.ts", "src/x.ts"}, {"*.go", "pkg/util/x.go"}, {"*.js", "node_modules/x.js"}, {"[", "x"}}
)

func allInputs() [][2]string {
	var all [][2]string
	for _, in := range [][][2]string{childenvInputs, permissionWildInputs, permissionFileInputs, policycheckInputs, shellguardInputs, toolsInputs} {
		all = append(all, in...)
	}
	return all
}

// crossed returns in, then every pattern of every table with every subject.
func crossed(in [][2]string) [][2]string {
	all := allInputs()
	out := append([][2]string(nil), in...)
	for _, p := range all {
		for _, s := range all {
			out = append(out, [2]string{p[0], s[1]})
		}
	}
	return out
}

func TestAgreesWithOldMatchers(t *testing.T) {
	env, envFold := Wild{One: true}, Wild{One: true, Fold: true}
	for _, in := range crossed(childenvInputs) {
		p, s := in[0], in[1]
		if got, want := env.Match(p, s), oldChildenvGlob(p, s); got != want {
			t.Errorf("childenv keep %q %q: new %v, old %v", p, s, got, want)
		}
		if got, want := envFold.Match(p, s), oldChildenvGlob(strings.ToUpper(p), strings.ToUpper(s)); got != want {
			t.Errorf("childenv strip %q %q: new %v, old %v", p, s, got, want)
		}
	}
	text := []struct {
		name   string
		old    func(p, s string) bool
		inputs [][2]string
	}{
		{"permission wildMatch", oldPermissionWild, permissionWildInputs},
		{"policycheck.Glob", oldPolicycheckGlob, policycheckInputs},
		{"shellguard globMatch", oldShellguardGlob, shellguardInputs},
	}
	for _, m := range text {
		for _, in := range crossed(m.inputs) {
			if got, want := Match(in[0], in[1]), m.old(in[0], in[1]); got != want {
				t.Errorf("%s %q %q: new %v, old %v", m.name, in[0], in[1], got, want)
			}
		}
	}
	for _, in := range crossed(permissionFileInputs) {
		p, s := in[0], in[1]
		want, wantOK := oldPermissionFile(p, s)
		got, gotOK := newPermissionFile(p, s)
		if got != want || gotOK != wantOK {
			t.Errorf("permission file %q %q: new %v (compiles %v), old %v (compiles %v)", p, s, got, gotOK, want, wantOK)
		}
	}
	for _, in := range crossed(toolsInputs) {
		p, s := in[0], in[1]
		if strings.HasPrefix(s, "./") {
			continue // the tools match filepath.Rel names, never "./…"
		}
		want, wantOK := oldToolsGlob(p, s)
		got, gotOK := newToolsGlob(p, s)
		if wantOK && strings.Contains(p, "/") && strings.Contains(p, "**") && !gotOK {
			continue // "src/a**/b" is refused now, as in file rules (ErrDoubleStar)
		}
		if got != want || gotOK != wantOK {
			t.Errorf("tools glob %q %q: new %v (compiles %v), old %v (compiles %v)", p, s, got, gotOK, want, wantOK)
		}
	}
}

// newPermissionFile is what agent/permission's compile and match do with
// this package for a file key.
func newPermissionFile(pattern, subject string) (match, ok bool) {
	if p := strings.TrimPrefix(pattern, "./"); pattern == "" || pattern == "*" || p == "**" || p == "" {
		return true, true
	}
	cp, err := CompilePath(pattern)
	if err != nil {
		return false, false
	}
	if cp.Name() {
		return cp.MatchAnySegment(subject), true
	}
	return cp.Match(subject), true
}

// newToolsGlob is what agent/tools' compileGlob and match do with this
// package.
func newToolsGlob(pattern, name string) (match, ok bool) {
	pattern = strings.TrimPrefix(path.Clean(strings.ReplaceAll(pattern, "\\", "/")), "./")
	if pattern == "" || pattern == "." {
		return false, false
	}
	cp, err := CompilePath(strings.Trim(pattern, "/"))
	if err != nil {
		return false, false
	}
	return cp.Match(name), true
}

// FuzzAgreesWithOldMatchers runs the differential test on any input.
func FuzzAgreesWithOldMatchers(f *testing.F) {
	for _, in := range allInputs() {
		f.Add(in[0], in[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 64 || len(s) > 256 {
			return
		}
		if Match(p, s) != oldPermissionWild(p, s) || Match(p, s) != oldPolicycheckGlob(p, s) || Match(p, s) != oldShellguardGlob(p, s) {
			t.Errorf("text %q %q: new %v, old disagree", p, s, Match(p, s))
		}
		if (Wild{One: true}).Match(p, s) != oldChildenvGlob(p, s) {
			t.Errorf("childenv %q %q", p, s)
		}
		if (Wild{One: true, Fold: true}).Match(p, s) != oldChildenvGlob(strings.ToUpper(p), strings.ToUpper(s)) {
			t.Errorf("childenv fold %q %q", p, s)
		}
		if strings.Count(p, "**") > 4 {
			return // the old permission pathMatch recursed once per "**"
		}
		want, wantOK := oldPermissionFile(p, s)
		if got, gotOK := newPermissionFile(p, s); got != want || gotOK != wantOK {
			t.Errorf("permission file %q %q: new %v (%v), old %v (%v)", p, s, got, gotOK, want, wantOK)
		}
		if strings.HasPrefix(s, "./") {
			return // the tools match filepath.Rel names, never "./…"
		}
		want, wantOK = oldToolsGlob(p, s)
		got, gotOK := newToolsGlob(p, s)
		if wantOK && !gotOK && strings.Contains(strings.Trim(path.Clean(strings.ReplaceAll(p, "\\", "/")), "/"), "/") {
			return // a "**" inside a segment of a path pattern is refused now
		}
		if got != want || gotOK != wantOK {
			t.Errorf("tools glob %q %q: new %v (%v), old %v (%v)", p, s, got, gotOK, want, wantOK)
		}
	})
}

// BenchmarkEditRules matches the file rules of agent/permission's
// BenchmarkEvaluateEdit (src/**, vendor/**, *.lock) against its path, all
// compiled beforehand, with this package and with the old permission code.
func BenchmarkEditRules(b *testing.B) {
	const name = "src/agent/permission/engine.go"
	b.Run("new", func(b *testing.B) {
		src, _ := CompilePath("src/**")
		vendor, _ := CompilePath("vendor/**")
		lock, _ := CompilePath("*.lock")
		for b.Loop() {
			src.Match(name)
			vendor.Match(name)
			lock.MatchAnySegment(name)
		}
	})
	b.Run("old", func(b *testing.B) {
		src, vendor := []string{"src", "**"}, []string{"vendor", "**"}
		for b.Loop() {
			oldPathMatch(src, name)
			oldPathMatch(vendor, name)
			oldNameMatch("*.lock", name)
		}
	})
}

// oldNameMatch is agent/permission's matchName: any segment matches.
func oldNameMatch(pattern, subject string) bool {
	s := strings.TrimPrefix(subject, "./")
	for {
		i := strings.IndexByte(s, '/')
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		if oldSegMatch(pattern, seg) {
			return true
		}
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}
