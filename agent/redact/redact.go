// Package redact is the one pass every tool result takes before the model,
// the event stream and the session store see it (agent.Config.Redact): it
// replaces the values of the secrets a session knows with
// "[redacted: NAME from SOURCE]", whatever command printed them, then
// every credential-shaped string with "[REDACTED]" (internal/secret).
//
// The secrets it knows:
//
//   - the values of the workspace's secrets files (.env, *.env, *.env.*
//     other than the .example, .sample and .template templates:
//     internal/secret.FileName), each as "NAME from FILE" with FILE
//     relative to the workspace (".env", "config/prod.env");
//   - the secret-named variables oceancode took out of the child
//     environment and the provider keys (internal/secretenv), as
//     "NAME from environment";
//   - the server token, as "server token from server.token", and any other
//     file Config.Files names.
//
// The files are read when the Redactor is made and read again when one
// changes: each pass of a text of MinValue bytes or more compares the
// stat (size, modification time, inode) of the files, of the workspace
// directory and of each directory holding a secrets file with what it last
// read, so a write tool changing .env, or a command creating one beside
// another or at the top, is caught by the next result. A text naming a
// secrets file the Redactor has not read (a new config/dev.env that a
// write tool reports or grep -r prints) makes it walk the workspace again
// first, once per name. Values too short or too common to be secrets are
// not redacted (internal/secret.Candidate).
package redact

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/filestamp"
	"github.com/oceancode/oceancode/internal/gitquery"
	"github.com/oceancode/oceancode/internal/secret"
	"github.com/oceancode/oceancode/internal/secretenv"
)

// MaxDirs bounds the directories of the workspace the Redactor walks for
// secrets files (.git and node_modules are not walked).
const MaxDirs = 5000

// MaxFileSize bounds a secrets file the Redactor reads: a larger one is
// not a list of variables.
const MaxFileSize = 1 << 20

// File is a file whose whole content (trimmed) is one secret.
type File struct {
	Path string // absolute
	Name string // what the mark calls it ("server token")
}

// Config says where a session's secrets are.
type Config struct {
	// Root is the workspace: its secrets files are read ("": none).
	Root string
	// Files are single-secret files (the server token).
	Files []File
	// Env returns the environment's secrets and a version that changes
	// when they do (nil: internal/secretenv.Known).
	Env func() ([]secret.Known, uint64)
	// HistoryCache is a directory where the Redactor notes, per workspace,
	// the refs under which the secrets files' history held no value, so
	// the next session over the same refs does not ask git again ("":
	// none). Only that absence is kept: never a value.
	HistoryCache string
}

// Redactor redacts a session's secrets. It is safe for concurrent use.
type Redactor struct {
	cfg Config

	mu      sync.Mutex
	stats   map[string]filestamp.Stamp // every watched file and directory
	envVer  uint64
	current *secret.Redactor
	names   map[string]bool // secrets file names read, or looked for by a walk

	histStamp string         // the refs (gitquery.RefsStamp) histKnown was read under
	histKnown []secret.Known // the values the secrets files' history held
}

// New returns a Redactor for cfg. It reads the files in the background
// (the walk of a large workspace takes milliseconds a session's start
// need not wait for); the first Redact waits for them.
func New(cfg Config) *Redactor {
	if cfg.Env == nil {
		cfg.Env = secretenv.Known
	}
	r := &Redactor{cfg: cfg, names: map[string]bool{}}
	r.mu.Lock()
	go func() {
		defer r.mu.Unlock()
		r.load()
	}()
	return r
}

// Wait returns once the files read in the background by New are read
// (and the history's note, if any, written): a session's Close waits, so
// nothing writes to the state dir after the session is closed.
func (r *Redactor) Wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
}

// Redact is the pass: the session's secret values, then credential
// shapes.
func (r *Redactor) Redact(s string) string {
	if len(s) < secret.MinValue {
		return s // too short to hold a value or a credential shape
	}
	return r.Current(s).Redact(s)
}

// Current returns the redactor for the secrets as they are now, reading
// the files again if one changed or text names one not read yet.
func (r *Redactor) Current(text string) *secret.Redactor {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stale() || r.namesNew(text) {
		r.load()
	}
	return r.current
}

// namesNew reports whether text names a secrets file that no walk has
// seen: a word holding ".env" that secret.FileName accepts, as a path
// relative to the workspace or absolute. Each such name is remembered, so
// it makes one walk at most.
func (r *Redactor) namesNew(text string) bool {
	if r.cfg.Root == "" || !strings.Contains(text, ".env") {
		return false
	}
	found := false
	for i := 0; ; {
		j := strings.Index(text[i:], ".env")
		if j < 0 {
			break
		}
		j += i
		start, end := j, j+4
		for start > 0 && nameByte(text[start-1]) {
			start--
		}
		for end < len(text) && nameByte(text[end]) {
			end++
		}
		name := strings.TrimPrefix(text[start:end], "./")
		if !r.names[name] && secret.FileName(name) {
			r.names[name] = true
			found = true
		}
		i = end
	}
	return found
}

// nameByte: a byte of a file name as commands print it.
func nameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// stale reports whether a watched file or directory or the environment's
// secrets changed since load.
func (r *Redactor) stale() bool {
	if _, v := r.cfg.Env(); v != r.envVer {
		return true
	}
	for p, st := range r.stats {
		if !filestamp.Stat(p).Equal(st) {
			return true
		}
	}
	return false
}

// load reads every source and builds the redactor.
func (r *Redactor) load() {
	known, ver := r.cfg.Env()
	r.envVer = ver
	r.stats = map[string]filestamp.Stamp{}
	for _, f := range r.cfg.Files {
		r.stats[f.Path] = filestamp.Stat(f.Path)
		if b, err := readSmall(f.Path); err == nil {
			known = append(known, secret.Known{Name: f.Name, Source: filepath.Base(f.Path), Value: strings.TrimSpace(string(b))})
		}
	}
	if r.cfg.Root != "" {
		for _, p := range r.walk() {
			b, err := readSmall(p)
			if err != nil {
				continue
			}
			rel, err := filepath.Rel(r.cfg.Root, p)
			if err != nil {
				rel = p
			}
			for _, v := range Parse(b) {
				known = append(known, secret.Known{Name: v.Name, Source: filepath.ToSlash(rel), Value: v.Value})
			}
		}
	}
	if r.cfg.Root != "" {
		known = append(known, r.history()...)
	}
	r.current = secret.NewKnownRedactor(known...)
}

// GitTimeout bounds the read of the secrets files' git history.
const GitTimeout = 3 * time.Second

// gitHistory returns the assignments every committed version of the
// workspace's secrets files held (git log -p of them on every ref): a
// value since changed or removed from the file still shows in git diff,
// git log -p and git show. The repository's own config must not run code
// here: internal/gitquery neutralises every program it could name (the
// pager, fsmonitor, the signature verifier log.showSignature would start),
// external diff drivers and textconv filters are off, and the command is
// stopped after GitTimeout.
//
// complete is false when git did not finish (a timeout, no git): what it
// returned is then not the whole history.
func gitHistory(root string) (known []secret.Known, complete bool) {
	if !gitquery.HasRepository(root) {
		return nil, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), GitTimeout)
	defer cancel()
	cmd := gitquery.Command(ctx, root, "log", "-p", "--all", "--no-ext-diff", "--no-textconv", "--no-color", "--format=", "--",
		":(glob,icase)**/.env", ":(glob,icase)**/*.env", ":(glob,icase)**/*.env.*")
	out, err := cmd.Output() // what was read before a timeout still counts
	file := ""
	var body bytes.Buffer
	flush := func() {
		if file != "" && secret.FileName(file) {
			for _, v := range Parse(body.Bytes()) {
				known = append(known, secret.Known{Name: v.Name, Source: file, Value: v.Value})
			}
		}
		body.Reset()
	}
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			file = ""
		case strings.HasPrefix(l, "+++ b/"):
			file = strings.TrimPrefix(l, "+++ b/")
		case strings.HasPrefix(l, "--- a/") && file == "":
			file = strings.TrimPrefix(l, "--- a/")
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-"):
			body.WriteString(l[1:])
			body.WriteByte('\n')
		}
	}
	flush()
	return known, err == nil
}

// walk finds the workspace's secrets files (templates excepted), and
// stamps them and every directory walked.
func (r *Redactor) walk() []string {
	var files []string
	dirs := 0
	filepath.WalkDir(r.cfg.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != r.cfg.Root && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if dirs++; dirs > MaxDirs {
				return filepath.SkipDir
			}
			if p == r.cfg.Root {
				r.stats[p] = filestamp.Stat(p)
			}
			return nil
		}
		if secret.FileName(d.Name()) {
			rel, _ := filepath.Rel(r.cfg.Root, p)
			r.names[p], r.names[filepath.ToSlash(rel)] = true, true
			files = append(files, p)
			r.stats[p] = filestamp.Stat(p)
			r.stats[filepath.Dir(p)] = filestamp.Stat(filepath.Dir(p))
		}
		return nil
	})
	return files
}

// readSmall reads a regular file of at most MaxFileSize bytes.
func readSmall(p string) ([]byte, error) {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid // a FIFO would block the open
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
		return nil, fs.ErrInvalid
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// Var is one assignment of a secrets file.
type Var struct {
	Name, Value string
}

// Parse reads the assignments of a .env file: NAME=VALUE or NAME: VALUE
// lines, optionally after "export ", with # comments; a value may be
// single-quoted (literal), double-quoted (with \n, \t, \" and \\ escapes,
// and across lines) or bare (up to a " #" comment). A double-quoted value
// with escapes yields both its text as written and its decoded value, as
// either may be printed. Lines that are not assignments are skipped.
func Parse(b []byte) []Var {
	var out []Var
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), MaxFileSize)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		i := strings.IndexAny(line, "=:")
		if i <= 0 {
			continue
		}
		name, val := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		if !secret.VarName(name) {
			continue
		}
		switch {
		case strings.HasPrefix(val, "'"):
			val = quoted(sc, val[1:], '\'')
		case strings.HasPrefix(val, `"`):
			raw := quoted(sc, val[1:], '"')
			if dec := unescape(raw); dec != raw {
				out = append(out, Var{name, dec})
			}
			val = raw
		default:
			if j := strings.Index(val, " #"); j >= 0 {
				val = strings.TrimSpace(val[:j])
			}
		}
		out = append(out, Var{name, val})
	}
	return out
}

// quoted returns a quoted value's text up to its closing quote, reading
// more lines while it is open.
func quoted(sc *bufio.Scanner, v string, q byte) string {
	var b strings.Builder
	for {
		if j := closing(v, q); j >= 0 {
			b.WriteString(v[:j])
			return b.String()
		}
		b.WriteString(v)
		if !sc.Scan() {
			return b.String()
		}
		b.WriteByte('\n')
		v = sc.Text()
	}
}

// closing is the index of v's unescaped closing quote q, or -1.
func closing(v string, q byte) int {
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && q == '"':
			i++
		case v[i] == q:
			return i
		}
	}
	return -1
}

var unescaper = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`, `\r`, "\r")

func unescape(s string) string { return unescaper.Replace(s) }

// history is the values the secrets files' history held (gitHistory),
// asked of git again only when the refs moved (gitquery.RefsStamp): a
// command creating a file in the workspace makes the Redactor load again,
// and the history below unchanged refs cannot have changed. A history
// found clean, completely read, is noted in Config.HistoryCache for the
// next session.
func (r *Redactor) history() []secret.Known {
	stamp, ok := gitquery.RefsStamp(r.cfg.Root)
	switch {
	case !ok:
		known, _ := gitHistory(r.cfg.Root)
		return known
	case stamp == r.histStamp:
		return r.histKnown
	case r.cachedClean(stamp):
		r.histStamp, r.histKnown = stamp, nil
		return nil
	}
	known, complete := gitHistory(r.cfg.Root)
	if complete {
		r.histStamp, r.histKnown = stamp, known
		if len(known) == 0 {
			r.noteClean(stamp)
		}
	}
	return known
}

// cacheFile is the workspace's note in Config.HistoryCache ("": none).
func (r *Redactor) cacheFile() string {
	if r.cfg.HistoryCache == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(r.cfg.Root))
	return filepath.Join(r.cfg.HistoryCache, hex.EncodeToString(sum[:16]))
}

// cachedClean reports whether the note says the history under stamp held
// no value.
func (r *Redactor) cachedClean(stamp string) bool {
	f := r.cacheFile()
	if f == "" {
		return false
	}
	b, err := readSmall(f)
	return err == nil && string(b) == stamp
}

// noteClean notes that the history under stamp held no value. A note that
// cannot be written costs the next session one read of the history.
func (r *Redactor) noteClean(stamp string) {
	f := r.cacheFile()
	if f == "" || os.MkdirAll(filepath.Dir(f), 0o700) != nil {
		return
	}
	_ = atomicfile.Write(f, []byte(stamp), 0o600)
}
