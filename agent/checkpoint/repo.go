// Package checkpoint keeps the working tree's state before and after each
// turn that may change files, so that a turn can be undone (and the undo
// redone) file by file — changes made by bash included.
//
// The states are kept in a shadow git repository per project under the
// state dir ($XDG_STATE_HOME/oceancode/checkpoints/repos/<key>), never in
// the project's own .git: git runs with --git-dir set to the shadow
// repository, the project as its work tree and the shadow's own index
// file, so the project's index, refs, hooks and configuration are never
// read or written. The project is untrusted input, so every git process
// runs with the system and global configuration off (only the shadow's
// config, which this package writes, is read), with internal/gitquery's
// overrides in its environment (no hooks, no fsmonitor, no pager, no
// transports), and with the shadow's info/attributes unsetting every
// attribute that would run a filter or convert content (a project's
// .gitattributes cannot name a clean filter that runs, and files are kept
// byte for byte).
//
// What is kept honours the project's .gitignore files and its
// .git/info/exclude (copied into the shadow); the project's .git is never
// looked into. A file larger than Options.MaxFileBytes is not kept: it is
// recorded as skipped, and an undo names it as not restored.
//
// A turn's checkpoint is two snapshots (trees): before its first change
// (Session.Before, taken lazily, so a read-only turn costs nothing) and at
// its end (Session.End), and the files that differ between them. Undo
// restores those files to the first snapshot after checking that none was
// changed since the turn ended (a file changed by the user is never
// overwritten silently: ConflictError lists them); redo puts back what the
// undo replaced, with the same check. The journal of a session's
// checkpoints is a JSON file beside the shadow repositories
// (checkpoints/sessions/<id>.json). Old checkpoints are pruned by age and
// by the repositories' size (Prune).
//
// See docs/checkpoints.md.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/gitquery"
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 512 << 20
	DefaultMaxFileBytes = 10 << 20
	DefaultMaxAge       = 30 * 24 * time.Hour
)

// Options configure the checkpoints of a state dir.
type Options struct {
	// StateDir is oceancode's state dir; checkpoints live in its
	// checkpoints/ folder.
	StateDir string
	// MaxBytes bounds the disk the shadow repositories use (checkpoints.max_mb;
	// 0: DefaultMaxBytes): Prune drops the oldest checkpoints past it.
	MaxBytes int64
	// MaxFileBytes bounds one file a snapshot keeps (checkpoints.max_file_mb;
	// 0: DefaultMaxFileBytes): a larger file is recorded as skipped.
	MaxFileBytes int64
	// MaxAge is how long a checkpoint is kept (0: DefaultMaxAge).
	MaxAge time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Repo is the shadow repository of one project.
type Repo struct {
	o    Options
	root string // the project root (absolute, symlinks resolved)
	dir  string // the shadow git dir
	lock *fileLock
}

// Open opens (creating it if need be) the shadow repository of the project
// at root.
func Open(o Options, root string) (*Repo, error) {
	o = o.withDefaults()
	if o.StateDir == "" {
		return nil, errors.New("checkpoint: open: no state dir")
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: open project %s: %w", root, err)
	}
	if home, _ := os.UserHomeDir(); abs == filepath.Dir(abs) || (home != "" && abs == home) {
		return nil, fmt.Errorf("checkpoint: open project %s: not checkpointed: the root or home directory is not a project (start oceancode in the project)", abs)
	}
	sum := sha256.Sum256([]byte(abs))
	r := &Repo{o: o, root: abs, dir: filepath.Join(o.StateDir, "checkpoints", "repos", hex.EncodeToString(sum[:8]))}
	r.lock = newFileLock(filepath.Join(r.dir, "oceancode.lock"))
	if err := r.init(context.Background()); err != nil {
		return nil, err
	}
	return r, nil
}

// Root is the project root the repository keeps.
func (r *Repo) Root() string { return r.root }

// Dir is the shadow git dir.
func (r *Repo) Dir() string { return r.dir }

// shadowConfig is the shadow repository's whole configuration. The
// system and global files are never read (GIT_CONFIG_NOSYSTEM,
// GIT_CONFIG_GLOBAL), so nothing but this and gitquery's overrides
// applies.
const shadowConfig = `[core]
	repositoryformatversion = 0
	bare = false
	filemode = true
	symlinks = true
	autocrlf = false
	safecrlf = false
	fsmonitor = false
	hooksPath = /dev/null
	attributesFile = /dev/null
	excludesFile = %s
	preloadIndex = true
	untrackedCache = false
	quotePath = false
	bigFileThreshold = 1m
[index]
	version = 4
[gc]
	auto = 0
[advice]
	addEmbeddedRepo = false
	addIgnoredFile = false
[user]
	name = oceancode
	email = oceancode@localhost
`

// shadowAttributes unset, with the highest precedence git gives
// attributes, every attribute that runs a program or changes content.
const shadowAttributes = "* -text -filter -diff -merge -ident -working-tree-encoding -export-subst\n"

// init creates the shadow repository, or rewrites its configuration when
// it is not ours.
func (r *Repo) init(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(r.dir, "info"), 0o700); err != nil {
		return fmt.Errorf("checkpoint: create %s: %w", r.dir, err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		cmd := exec.CommandContext(ctx, "git", "init", "-q", "--bare", r.dir)
		cmd.Env = slices.DeleteFunc(r.env(), func(kv string) bool {
			return strings.HasPrefix(kv, "GIT_WORK_TREE=") || strings.HasPrefix(kv, "GIT_DIR=")
		})
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("checkpoint: git init %s: %v: %s", r.dir, err, bytes.TrimSpace(out))
		}
		_ = os.RemoveAll(filepath.Join(r.dir, "hooks")) // samples only; hooksPath is /dev/null anyway
	}
	files := map[string]string{
		"config":          fmt.Sprintf(shadowConfig, quoteConfig(filepath.Join(r.dir, "info", "project-exclude"))),
		"info/attributes": shadowAttributes,
		"info/exclude":    r.ownExcludes(),
		"root":            r.root + "\n",
	}
	for name, want := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if got, err := os.ReadFile(p); err == nil && string(got) == want {
			continue
		}
		if err := atomicfile.Write(p, []byte(want), 0o600); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	return nil
}

// ownExcludes is the shadow's info/exclude: the state dir when it lies
// in the project (a snapshot never keeps the shadow repositories or the
// session store).
func (r *Repo) ownExcludes() string {
	state, err := filepath.Abs(r.o.StateDir)
	if err == nil {
		if resolved, err := filepath.EvalSymlinks(state); err == nil {
			state = resolved
		}
	}
	rel, err := filepath.Rel(r.root, state)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	if rel == "." {
		return "/checkpoints/\n"
	}
	return "/" + filepath.ToSlash(rel) + "/\n"
}

// quoteConfig quotes a path as a git config value.
func quoteConfig(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// env is the environment of every git process on the shadow repository:
// this process's without any GIT_ variable, the shadow's git dir, work
// tree and index, no system or global configuration, literal pathspecs,
// and gitquery's overrides.
func (r *Repo) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_DIR="+r.dir,
		"GIT_WORK_TREE="+r.root,
		"GIT_INDEX_FILE="+filepath.Join(r.dir, "index"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_ATTR_NOSYSTEM=1",
	)
	return gitquery.Overrides(env)
}

// git runs git on the shadow repository in the project root and returns
// its standard output.
func (r *Repo) git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, args...)...)
	cmd.Dir = r.root
	cmd.Env = r.env()
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("checkpoint: git %s in %s: %v: %s", args[0], r.root, err, bytes.TrimSpace(errb.Bytes()))
	}
	return out.Bytes(), nil
}
