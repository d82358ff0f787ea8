package shellguard

import (
	"github.com/oceancode/oceancode/internal/secret"
	"path"
	"strings"
)

// emit classifies one segment and appends it to the result.
func (w *walker) emit(argv []word, x ctx, in segIn, p peeled) {
	seg := w.segment(argv, x, in, &p)
	write := in.write
	if write == "" {
		write = x.write
	}
	if write == "" {
		write = p.write
	}
	if p.danger == "" {
		p.danger = x.danger
	}
	cwd := w.cwd
	if p.cwd != "" {
		cwd = p.cwd
	}
	lt := lazyText{argv: argv}

	switch {
	case in.shape != "":
		seg.Verdict, seg.Shape, seg.Reason = Floor, in.shape, in.reason
	case in.device != "":
		seg.Verdict, seg.Shape, seg.Reason = Floor, ShapeDeviceWrite, "floor: output redirected onto block device "+in.device
	default:
		if shape, why := w.floor(argv, x, p, cwd); shape != "" {
			seg.Verdict, seg.Shape, seg.Reason = Floor, shape, "floor: "+quote(lt.get())+" "+why+wrappedIn(x.wrappers, p.wrappers)
		}
	}
	w.secretArgs(&seg, argv, in, &lt, cwd) // secretfiles.go
	// Ask, allow and deny reasons are written by w.reason (see lazyReason).
	var lr lazyReason
	if seg.Verdict != Floor {
		lr = w.ruleVerdict(&seg, argv, x, in, &p, &lt, write)
	}
	if lr.prefix != "" {
		w.reason(&seg, lr)
	}
	w.res.Segments = append(w.res.Segments, seg)
	w.top = max(w.top, seg.Verdict)
	if len(argv) > 0 {
		w.noteSource(argv, x, in, write, cwd)
	}
	if !w.res.Hold && len(argv) > 0 {
		if h := holdReason(argv, p); h != "" {
			w.res.Hold, w.res.HoldReason = true, "hold: "+quote(lt.get())+" "+h
		}
	}
	if len(argv) > 0 && !in.expr && !in.unparsed {
		w.argPaths(argv, p, cwd)
	}
}

// segment starts a segment: its words, wrappers and redirections.
func (w *walker) segment(argv []word, x ctx, in segIn, p *peeled) Segment {
	seg := Segment{Raw: in.raw, Literal: true}
	if len(argv) > 0 {
		seg.Argv = w.strArena(len(argv))
		for i := range argv {
			seg.Argv[i] = argv[i].text
			if !argv[i].lit {
				seg.Literal = false
			}
		}
	}
	if len(x.wrappers)+len(p.wrappers) > 0 {
		seg.Wrappers = append(append(make([]string, 0, len(x.wrappers)+len(p.wrappers)), x.wrappers...), p.wrappers...)
	}
	if len(x.redirs) == 0 {
		seg.Redirects = in.redirs
	} else {
		seg.Redirects = w.strArena(len(x.redirs) + len(in.redirs))
		copy(seg.Redirects[copy(seg.Redirects, x.redirs):], in.redirs)
	}
	return seg
}

// ruleVerdict decides a segment the floor did not take: shell.deny, the
// unparsed and preset asks, the safe list, shell.allow, else ask. It
// returns the reason to write lazily.
func (w *walker) ruleVerdict(seg *Segment, argv []word, x ctx, in segIn, p *peeled, lt *lazyText, write string) lazyReason {
	var lr lazyReason
	if r := w.matchDeny(lt, x.layers, p.layers); r != nil {
		seg.Verdict, seg.Rule = Deny, r.rule
		lr = lazyReason{prefix: "deny: ", why: " matches shell.deny rule ", pattern: r.rule.Pattern, rule: true}
	} else if in.unparsed {
		seg.Verdict, seg.Reason = Ask, "ask: "+quote(lt.get())+" is part of a command that does not parse"
	} else if in.ask != "" {
		seg.Verdict, seg.Reason = Ask, in.ask
	} else if why, quoted := w.notSafe(argv, in, *p, write); why == "" {
		seg.Verdict = Safe
		seg.Reason = safeReason(in)
	} else if r := w.matchAllow(argv, lt, *p, write, seg.Literal, in); r != nil {
		seg.Verdict, seg.Rule = Allow, r.rule
		lr = lazyReason{prefix: "allow: ", why: " matches shell.allow rule ", pattern: r.rule.Pattern, rule: true}
	} else {
		seg.Verdict = Ask
		lr = lazyReason{prefix: "ask: ", why: why, quoted: quoted}
	}
	return lr
}

// lazyText joins a segment's words for reasons and glob rules, once.
type lazyText struct {
	argv []word
	text string
	done bool
}

func (t *lazyText) get() string {
	if !t.done {
		t.text, t.done = joinText(t.argv), true
	}
	return t.text
}

// lazyReason is a segment's reason before it is written: prefix +
// `"argv" why` (or prefix + why when not quoted) for ask, prefix +
// `"argv" why "pattern"` for a rule.
type lazyReason struct {
	seg     int // index in Result.Segments, once pending
	prefix  string
	why     string
	pattern string
	quoted  bool
	rule    bool
}

// reason writes seg's reason, or leaves it to finish when seg may decide
// the command: the first segment with the highest verdict decides, so a
// segment decides only if its verdict is above every earlier one's. Then
// the command's reason, the same text plus " (segment i of n)", can share
// its allocation. seg is about to be appended to the result.
func (w *walker) reason(seg *Segment, lr lazyReason) {
	if seg.Verdict <= w.top {
		seg.Reason = lr.text(seg.Argv, "")
		return
	}
	if w.pending.prefix != "" {
		// Superseded: it can no longer decide.
		s := &w.res.Segments[w.pending.seg]
		s.Reason = w.pending.text(s.Argv, "")
	}
	lr.seg = len(w.res.Segments)
	w.pending = lr
}

// text is the reason for a segment with words argv, followed by suffix, in
// one allocation.
func (lr *lazyReason) text(argv []string, suffix string) string {
	if lr.rule {
		return ruleReason(lr.prefix, argv, lr.why, lr.pattern, suffix)
	}
	return buildReason(lr.prefix, argv, lr.why, lr.quoted, suffix)
}

// buildReason is prefix + `"argv" why` (or prefix + why) + suffix, in one
// allocation.
func buildReason(prefix string, argv []string, why string, quoted bool, suffix string) string {
	var b strings.Builder
	n := len(prefix) + len(why) + len(suffix) + 3
	if quoted {
		q := 0
		for _, a := range argv {
			q += len(a) + 1
		}
		n += min(q, maxQuoted+5)
	}
	b.Grow(n)
	b.WriteString(prefix)
	if quoted {
		writeQuoted(&b, argv)
		b.WriteByte(' ')
	}
	b.WriteString(why)
	b.WriteString(suffix)
	return b.String()
}

// ruleReason is prefix + quote(strings.Join(argv, " ")) + mid +
// quote(pattern) + suffix, in one allocation and without joining the words.
func ruleReason(prefix string, argv []string, mid, pattern, suffix string) string {
	q := len(argv)
	for _, a := range argv {
		q += len(a)
	}
	var b strings.Builder
	b.Grow(len(prefix) + min(q, maxQuoted+4) + len(mid) + min(len(pattern), maxQuoted+3) + len(suffix) + 4)
	b.WriteString(prefix)
	b.WriteByte('"')
	limit := maxQuoted
	for i, a := range argv {
		// quoteBody over the joined text, one word (and space) at a time.
		if i > 0 {
			if limit <= 0 {
				b.WriteString("...")
				break
			}
			limit--
			b.WriteByte(' ')
		}
		if limit < len(a) {
			quoteBody(&b, a, limit) // cut, with "..."
			break
		}
		limit = quoteBody(&b, a, limit)
	}
	b.WriteByte('"')
	b.WriteString(mid)
	b.WriteByte('"')
	quoteBody(&b, pattern, maxQuoted)
	b.WriteByte('"')
	b.WriteString(suffix)
	return b.String()
}

// wrappedIn names the wrappers a floor command hid behind.
func wrappedIn(outer, inner []string) string {
	if len(outer)+len(inner) == 0 {
		return ""
	}
	all := append(append([]string(nil), outer...), inner...)
	return " (inside " + strings.Join(all, ", ") + ")"
}

func safeReason(in segIn) string {
	switch {
	case in.assign:
		return "safe: variable assignment"
	case in.expr:
		return "safe: test or arithmetic expression"
	case in.decl:
		return "safe: only sets variables"
	}
	return "safe: read-only command"
}

func (w *walker) matchDeny(t *lazyText, outer, layers []string) *pattern {
	for i := range w.c.deny {
		d := &w.c.deny[i]
		if d.matchWords(t) {
			return d
		}
		for _, l := range outer {
			if d.match(l) {
				return d
			}
		}
		for _, l := range layers {
			if d.match(l) {
				return d
			}
		}
	}
	return nil
}

// matchAllow matches shell.allow rules against a segment that could be
// allowed at all: literal, no dangerous environment, no file written, a
// wrapper split we are sure of, not elevated.
func (w *walker) matchAllow(argv []word, t *lazyText, p peeled, write string, literal bool, in segIn) *pattern {
	if len(w.c.allow) == 0 || len(argv) == 0 || !literal || p.danger != "" || p.uncertain || write != "" || in.unknown ||
		strings.ContainsAny(argv[0].val, "$`") {
		return nil
	}
	for i := range w.c.allow {
		if w.c.allow[i].matchWords(t) {
			return &w.c.allow[i]
		}
	}
	return nil
}

// argPaths reports the outside paths a command's words name.
func (w *walker) argPaths(argv []word, p peeled, cwd string) {
	saved := w.cwd
	w.cwd = cwd
	defer func() { w.cwd = saved }()
	name := cmdName(argv[0])
	if argv[0].known && strings.IndexByte(argv[0].val, '/') >= 0 && !systemBin(argv[0].val) {
		w.pathArg(argv[0].val, true)
	}
	if name == "cd" || name == "pushd" {
		return // chdir reports the target
	}
	force := false
	for _, a := range argv[1:] {
		if !a.known {
			force = false
			continue
		}
		v := a.val
		if force {
			force = false
			w.pathArg(v, true)
			continue
		}
		switch v {
		case "-C", "--directory", "--git-dir", "--work-tree", "--chdir", "-o", "--output", "-f", "--file":
			force = v == "-C" || v == "--directory" || v == "--git-dir" || v == "--work-tree" || v == "--chdir"
			continue
		}
		if strings.HasPrefix(v, "-") {
			if _, val, ok := strings.Cut(v, "="); ok {
				w.pathArg(val, false)
			}
			continue
		}
		if k, val, ok := strings.Cut(v, "="); ok && isIdent(k) {
			w.pathArg(val, false)
			continue
		}
		w.pathArg(v, false)
	}
}

// isIdent reports whether s is a shell variable name (the one rule,
// internal/secret.VarName).
func isIdent(s string) bool { return secret.VarName(s) }

func systemBin(p string) bool {
	d := path.Dir(p)
	switch d {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin":
		return true
	}
	return false
}

// pathLike is the heuristic for which words are paths: absolute, starting
// with ./ ../ or ~ (already expanded), "." or "..", or containing a slash;
// URLs and host:path remote specs are not.
func pathLike(v string) bool {
	if v == "" {
		return false
	}
	if v[0] == '/' || v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	if !strings.Contains(v, "/") || strings.Contains(v, "://") {
		return false
	}
	if c := strings.IndexByte(v, ':'); c >= 0 && c < strings.IndexByte(v, '/') {
		return false // host:path, rev:path
	}
	return true
}

// pathArg reports v when it resolves outside the project. force: v is a
// path by position (cd, -C, redirect target) even if it does not look like one.
func (w *walker) pathArg(v string, force bool) {
	if !force && !pathLike(v) {
		return
	}
	if force && v == "" {
		return
	}
	if v[0] != '/' && w.cwd != "" && w.c.root != "" && !hasDotDot(v) && w.inside(w.cwd) {
		return // relative, no "..", from a directory inside the project
	}
	r := w.resolve(v)
	if r == "" || harmlessDev(r) {
		return
	}
	if !w.inside(r) {
		w.addOutside(r)
	}
}

// hasDotDot reports whether a path has a ".." component.
func hasDotDot(v string) bool {
	for {
		i := strings.IndexByte(v, '/')
		if i < 0 {
			return v == ".."
		}
		if v[:i] == ".." {
			return true
		}
		v = v[i+1:]
	}
}

func (w *walker) resolve(v string) string {
	if v == "" {
		return ""
	}
	if v[0] == '/' {
		return path.Clean(v)
	}
	if w.cwd == "" {
		return ""
	}
	return path.Join(w.cwd, v)
}

func (w *walker) inside(p string) bool {
	root := w.c.root
	if root == "" {
		return false
	}
	return p == root || root == "/" || (strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/')
}

func (w *walker) addOutside(p string) {
	if w.c.home == homeSentinel && (p == homeSentinel || strings.HasPrefix(p, homeSentinel+"/")) {
		p = "~" + p[len(homeSentinel):]
	}
	for _, o := range w.res.OutsidePaths {
		if o == p {
			return
		}
	}
	w.res.OutsidePaths = append(w.res.OutsidePaths, p)
}

func cleanAbs(p string) string {
	if p == "" {
		return ""
	}
	if p[0] != '/' {
		return ""
	}
	return path.Clean(p)
}

func joinClean(a, b string) string { return path.Join(a, b) }

// harmlessDev: device files that are not storage (reading or writing them
// is not a file access worth reporting, nor a device write).
func harmlessDev(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
		"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/ptmx", "/dev/console":
		return true
	}
	for _, pre := range []string{"/dev/fd/", "/dev/pts/", "/dev/tcp/", "/dev/udp/", "/proc/self/fd/"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// isDevice: a /dev path that is (or may be) a storage or memory device.
func isDevice(p string) bool {
	if p == "/proc/sysrq-trigger" {
		return true // echo b > /proc/sysrq-trigger reboots at once, c crashes the kernel
	}
	if !strings.HasPrefix(p, "/dev/") || harmlessDev(p) || strings.HasPrefix(p, "/dev/shm/") || strings.HasPrefix(p, "/dev/mqueue/") {
		return false
	}
	return true
}
