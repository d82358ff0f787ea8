package shellguard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Verdict is the classifier's decision for a segment or a whole command.
// Verdicts are ordered: a command's verdict is the highest verdict of its
// segments. The zero value is not a verdict; treat it like [Ask] or worse.
type Verdict int

const (
	// Safe: on the read-only safe list (built in or Config.SafeListExtra).
	Safe Verdict = iota + 1
	// Allow: not read-only, but a shell.allow rule matched.
	Allow
	// Ask: nothing approves it; the permission engine decides (usually a prompt).
	Ask
	// Deny: a shell.deny rule matched.
	Deny
	// Floor: a destructive shape from the dangerous floor; refused outright,
	// no mode or rule reopens it.
	Floor
)

// String returns "safe", "allow", "ask", "deny" or "floor".
func (v Verdict) String() string {
	switch v {
	case Safe:
		return "safe"
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	case Floor:
		return "floor"
	}
	return "unset"
}

// Allowed reports whether v lets the command run without asking (Safe or Allow).
func (v Verdict) Allowed() bool { return v == Safe || v == Allow }

// Floor shapes carried in Segment.Shape.
const (
	ShapeRmRoot       = "rm-root"
	ShapeGitForcePush = "git-force-push"
	ShapeDDDevice     = "dd-device"
	ShapeChmod777Root = "chmod-777-root"
	ShapeMkfs         = "mkfs"
	ShapeForkBomb     = "fork-bomb"
	ShapePipeToShell  = "pipe-to-shell"
	ShapeDeviceWrite  = "device-write"
	// ShapePermRoot: a recursive permission, ownership, ACL or attribute
	// change of a protected directory (chmod -R 755 /, chown -R x ~).
	ShapePermRoot = "perm-root"
)

// Rule is one shell.allow or shell.deny entry: the inside of Bash(...).
type Rule struct {
	// Pattern is "prefix:*" (argv equals prefix or starts with prefix+" "),
	// a glob where '*' matches any run of characters including spaces, an
	// exact argv, or "" / "*" for every command.
	Pattern string
	// Origin is opaque to the classifier (the permission engine stores the
	// config layer, file and line here) and is handed back in Segment.Rule.
	Origin any
}

// Config is the classifier's input from configuration.
type Config struct {
	// SafeListExtra adds read-only commands, "cmd" or "cmd sub" ("make -n",
	// "kubectl get"), matched case-sensitively against the leading argv words
	// of a segment after wrappers are peeled.
	SafeListExtra []string
	// Allow and Deny are shell.allow and shell.deny. Deny beats allow; neither
	// reopens the floor.
	Allow []Rule
	Deny  []Rule
	// ProjectRoot is the absolute project directory; paths resolving outside
	// it are reported in Result.OutsidePaths. Empty: every resolvable path is
	// reported (fail closed).
	ProjectRoot string
	// Home is the user's home directory, used for ~ and $HOME. Empty: ~ and
	// $HOME are still recognised as "home" (for the floor) but not resolved.
	Home string
	// SecretDirs are directories whose every file is a secret, as .env is
	// (oceancode's state and config directories: agent/fsguard's
	// SecretDirs). A command that reads a path in one, or walks a directory
	// holding one (find -exec, grep -r, rg, tar, cp -r, rsync), is the
	// secret-file floor.
	SecretDirs []string
}

// Segment is one simple command of the input after wrappers are peeled.
type Segment struct {
	// Argv is the command after peeling wrappers: literal words with quotes
	// removed; a word that is not a literal is its source text ("$X").
	Argv []string
	// Raw is the segment's source text (of the innermost script it came
	// from, e.g. the inside of bash -c '...').
	Raw string
	// Wrappers are the peeled wrappers, outermost first ("sudo -u root",
	// "timeout 5", "bash -c").
	Wrappers []string
	Verdict  Verdict
	// Reason is human-readable and starts with the verdict ("ask: ...").
	Reason string
	// Shape is the floor shape (ShapeRmRoot, ...) when Verdict is Floor.
	Shape string
	// Rule is the allow or deny rule that decided, if any.
	Rule *Rule
	// Redirects are the segment's redirections as written ("2>&1", "> out.txt").
	Redirects []string
	// Literal is true when the command name and every argument are literal
	// words (no parameter, command or arithmetic expansion).
	Literal bool
}

// Result is the classification of a whole command.
type Result struct {
	Verdict Verdict
	// Reason explains the verdict, naming the deciding segment
	// (`floor: "rm -rf /" removes the filesystem root (segment 2 of 3)`).
	Reason   string
	Segments []Segment
	// OutsidePaths are paths the command names (arguments, redirect
	// targets, cd and -C directories, the starting cwd) that resolve
	// lexically outside Config.ProjectRoot, cleaned and deduplicated.
	OutsidePaths []string
	// ParseError is set when the input does not parse as bash; the verdict
	// is then never Safe or Allow.
	ParseError error
	// Hold is true when some segment is on the Jev hold list (package
	// install or publish, git push, recursive rm, ssh/scp, an uploading
	// curl, an interpreter run on a file); such a command always asks.
	Hold       bool
	HoldReason string
}

// Classifier classifies shell commands. Build it once with New; it is safe
// for concurrent use.
type Classifier struct {
	extra [][]string
	allow []pattern
	deny  []pattern
	root  string
	home  string   // cleaned home, or homeSentinel
	dirs  []string // cleaned SecretDirs
}

// homeSentinel stands for the home directory when Config.Home is empty.
const homeSentinel = "/~"

// ErrBadPattern is wrapped by New for a pattern or safe-list entry it cannot use.
var ErrBadPattern = errors.New("bad pattern")

// tablesOnce builds the option tables and the safe list on the first New:
// they are about 0.8 MB and 1.8 ms of work that a process which never
// classifies a command (oceancode --version, inspect) should not pay at
// start-up.
var tablesOnce sync.Once

func loadTables() {
	tablesOnce.Do(func() {
		initOptTables()
		initRunTable()
		initSafeList()
		initGoReasons()
		initHoldSubs()
		initDecoderRules()
	})
}

// New builds a Classifier from c, compiling its patterns. A bad pattern or
// safe-list entry is an error naming it.
func New(c Config) (*Classifier, error) {
	loadTables()
	cl := &Classifier{root: cleanAbs(c.ProjectRoot), home: cleanAbs(c.Home)}
	for _, d := range c.SecretDirs {
		if d = cleanAbs(d); d != "" {
			cl.dirs = append(cl.dirs, d)
		}
	}
	if cl.home == "" {
		cl.home = homeSentinel
	}
	for _, e := range c.SafeListExtra {
		f := strings.Fields(e)
		if len(f) == 0 || strings.ContainsAny(e, "*\x00\n") {
			return nil, fmt.Errorf("shellguard: compile safe_list_extra entry %q: %w (want \"cmd\" or \"cmd sub\" without wildcards)", e, ErrBadPattern)
		}
		cl.extra = append(cl.extra, f)
	}
	var err error
	if cl.allow, err = compileRules("allow", c.Allow); err != nil {
		return nil, err
	}
	if cl.deny, err = compileRules("deny", c.Deny); err != nil {
		return nil, err
	}
	return cl, nil
}

// Classify parses cmd as bash and classifies it. cwd is the directory the
// command starts in ("" means Config.ProjectRoot). Classify never executes
// anything.
func (c *Classifier) Classify(cmd string, cwd string) Result {
	w := &walker{c: c, src: cmd}
	w.res.Segments = w.segBuf[:0]
	ws := wordStacks.Get().(*wordStack)
	w.words = ws[:0]
	w.cwd = c.root
	if cwd != "" && cwd != c.root { // c.root is clean already: the common case skips path.Clean
		if cwd[0] == '/' {
			w.cwd = cleanAbs(cwd)
		} else if c.root != "" {
			w.cwd = joinClean(c.root, cwd)
		} else {
			w.cwd = ""
		}
	}
	if w.cwd != "" && !w.inside(w.cwd) {
		w.addOutside(w.cwd)
	}
	f, err := parse(cmd)
	if err != nil {
		w.res.ParseError = errors.New("shellguard: parse command: " + err.Error())
		w.recover(cmd, ctx{})
	} else {
		w.stmts(f.Stmts, ctx{})
	}
	w.finish()
	// Nothing in the result refers to the word stack (segments hold the
	// words' strings). The pool must keep no trees or values alive:
	// popWords clears what it pops, so the stack is clear already unless
	// words are left on it or it outgrew ws (ws keeps stale copies then).
	// Clearing 1 KB of pointers costs write barriers while the GC runs.
	if len(w.words) != 0 || &w.words[:1][0] != &ws[0] {
		clear(ws[:])
	}
	w.words = nil
	wordStacks.Put(ws)
	return w.res
}

func (w *walker) finish() {
	res := &w.res
	n := len(res.Segments)
	best := -1
	for i := range res.Segments {
		if best < 0 || res.Segments[i].Verdict > res.Segments[best].Verdict {
			best = i
		}
	}
	// The command's reason names the deciding segment when there are several.
	suffix := ""
	if n > 1 && res.Segments[best].Verdict != Safe {
		suffix = " (segment " + strconv.Itoa(best+1) + " of " + strconv.Itoa(n) + ")"
	}
	if lr := &w.pending; lr.prefix != "" {
		s := &res.Segments[lr.seg]
		if lr.seg == best && suffix != "" {
			// One string for both: the segment's reason is its prefix.
			r := lr.text(s.Argv, suffix)
			s.Reason, res.Reason = r[:len(r)-len(suffix)], r
			suffix = ""
		} else {
			s.Reason = lr.text(s.Argv, "")
		}
	}
	switch {
	case best < 0:
		res.Verdict, res.Reason = Safe, "safe: empty command"
	case n == 1:
		res.Verdict, res.Reason = res.Segments[0].Verdict, res.Segments[0].Reason
	default:
		res.Verdict = res.Segments[best].Verdict
		if res.Verdict == Safe {
			res.Reason = "safe: every segment is read-only"
		} else if suffix != "" {
			res.Reason = res.Segments[best].Reason + suffix
		}
	}
	if res.ParseError != nil && res.Verdict <= Ask {
		res.Verdict = Ask
		res.Reason = "ask: command does not parse (" + res.ParseError.Error() + ")"
	}
}
