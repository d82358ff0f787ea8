package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Env is what BwrapArgs needs to know about the host besides the policy.
// The zero value uses the process's surroundings.
type Env struct {
	// Helper is the executable re-executed inside bubblewrap in helper mode
	// ("" = os.Executable()).
	Helper string
	// ExecHelper is cmd/oceancode-sandbox-exec, the C twin of the helper
	// for the plain exec path ("" = not installed: Helper serves). A
	// network allowlist always takes Helper (its forwarder is Go).
	ExecHelper string
	// Home is the home directory whose credential stores are masked
	// ("" = os.UserHomeDir()).
	Home string
	// LandlockABI is the kernel's Landlock ABI version; 0 means the helper
	// applies no Landlock ruleset (bubblewrap alone confines the child).
	LandlockABI int
	// Getenv reads the child's environment (TMPDIR, GOMODCACHE, …); nil
	// reads nothing.
	Getenv func(string) string
	// EgressSocket is the host path of the egress proxy's unix socket for
	// network allowlist ("" = Policy.Egress's).
	EgressSocket string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Where the egress proxy's socket appears inside the sandbox (in the
// private /run tmpfs; in bubblewrap's /dev tmpfs on a host without /run).
const (
	egressSocketInside      = "/run/oceancode-egress.sock"
	egressSocketInsideNoRun = "/dev/oceancode-egress.sock"
)

// credentialStores are masked (unreadable) under the home directory.
var credentialStores = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".docker/config.json", ".config/gh", ".kube",
	".git-credentials", ".config/git/credentials", ".npmrc", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", ".config/gcloud", ".azure",
	".terraform.d/credentials.tfrc.json",
	// The agent's own configuration (may hold provider keys) and state.
	".config/oceancode", ".local/state/oceancode", ".oceancode",
}

// systemSecrets are masked host-wide.
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_*_key"}

func systemSecretPaths() []string {
	var out []string
	for _, s := range systemSecrets {
		if strings.ContainsAny(s, "*?[") {
			m, _ := sysGlob(s)
			out = append(out, m...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Probes of fixed system locations (/run, /var/tmp, /etc/shadow, …),
// replaceable so golden tests do not depend on the machine.
var (
	sysLstat        = os.Lstat
	sysEvalSymlinks = filepath.EvalSymlinks
	sysGlob         = filepath.Glob
	// sysUnreadable reports a system secret the command could not read
	// anyway, so masking it would change nothing (unreadable_linux.go);
	// elsewhere every one is masked.
	sysUnreadable = func(string, fs.FileInfo) bool { return false }
)

func sysExists(p string) bool {
	_, err := sysLstat(p)
	return err == nil
}

func sysIsDir(p string) bool {
	fi, err := sysLstat(p)
	return err == nil && fi.IsDir()
}

// packageCaches are writable in both confined modes when they exist.
var packageCaches = []string{
	".cache", ".npm", ".cargo/registry", ".cargo/git", "go/pkg/mod", ".pnpm-store",
	".local/share/pnpm", ".yarn/berry/cache", ".bun/install/cache", ".m2/repository", ".gradle/caches",
}

// protectedPath is a path write-protected inside every writable root.
type protectedPath struct {
	rel string
	dir bool
	// homeOnly: a missing one is blocked only when the root is the home
	// directory (shells read rc files from $HOME only); an existing one is
	// always write-protected.
	homeOnly bool
	// optional: a missing one is not blocked.
	optional bool
}

var protectedPaths = []protectedPath{
	{rel: ".git/hooks", dir: true},
	{rel: ".git/config"},
	{rel: ".git/info", dir: true},
	{rel: ".oceancode", dir: true},
	{rel: ".mcp.json"},
	{rel: ".bashrc", homeOnly: true},
	{rel: ".bash_profile", homeOnly: true},
	{rel: ".bash_login", homeOnly: true},
	{rel: ".bash_logout", homeOnly: true},
	{rel: ".profile", homeOnly: true},
	{rel: ".zshrc", homeOnly: true},
	{rel: ".zprofile", homeOnly: true},
	{rel: ".zshenv", homeOnly: true},
	{rel: ".zlogin", homeOnly: true},
	{rel: ".gitconfig", homeOnly: true},
}

// gitDirProtected are read-only in every git directory in a writable root
// (the workspace's, nested repositories', submodules' under .git/modules,
// a linked worktree's): what names programs or changes how git reads the
// work tree (hooks, config, info/attributes and info/exclude, alternates
// under objects/info), and what holds the history as of the last pack
// (objects/pack, packed-refs), so that removing .git cannot take it.
// Loose objects, loose refs, logs, the index and HEAD stay writable:
// git commit, checkout, branch, stash and merge work.
var gitDirProtected = []string{"hooks", "config", "config.worktree", "info", "objects/info", "objects/pack", "packed-refs", "commondir", "gitdir"}

// Bounds of the search for nested repositories and submodule git dirs at
// each command's start (documented in docs/sandbox.md).
const (
	gitSearchDepth = 6    // directory levels below the workspace
	gitSearchDirs  = 4096 // directories read at most
)

// gitSearchSkip are directory names not searched for nested repositories.
var gitSearchSkip = map[string]bool{".git": true, "node_modules": true}

// entryKind is what a directory entry is, symlinks not followed.
type entryKind uint8

const (
	entryOther entryKind = iota
	entryDir
	entryFile
)

// scanBufSize is the getdents buffer of one search (scanDir).
const scanBufSize = 32 << 10

// nestedGitPaths returns, relative to ws, the protected paths of every git
// directory below it other than its own .git's top level: nested
// repositories (a .git directory, or a .git file that is then protected
// itself), the submodule git dirs under each .git/modules, and linked
// worktrees' private dirs under .git/worktrees. All are optional: only what
// exists is protected. The search is breadth-first with each directory's
// entries in name order, so the bounds cut it the same way every time.
func nestedGitPaths(ws string) []protectedPath {
	out, _ := searchGitDirs(ws, nil)
	return out
}

// searchEntry is a directory entry the search for nested repositories
// keeps: a subdirectory, or a .git (dir true: a directory).
type searchEntry struct {
	name string
	dir  bool
}

// searchCache is what one search for nested repositories read: each
// directory's stamp (stampDir) and kept entries, by path relative to the
// workspace. The next search of the same workspace takes a directory's
// entries from it instead of reading the directory again when its stamp is
// unchanged (see docs/sandbox.md, "The search for nested repositories").
type searchCache struct {
	at   time.Time
	dirs map[string]cachedListing
}

type cachedListing struct {
	stamp dirStamp
	ents  []searchEntry
}

// searchGitDirs is nestedGitPaths with the listings of a previous search
// (prev, nil for none); it returns the paths and the listings for the next
// one.
func searchGitDirs(ws string, prev *searchCache) ([]protectedPath, *searchCache) {
	var out []protectedPath
	buf := make([]byte, scanBufSize)
	now := time.Now()
	if prev != nil && now.Before(prev.at) {
		prev = nil // the clock went back: no stamp can be trusted
	}
	next := &searchCache{at: now, dirs: map[string]cachedListing{}}
	stamps := newStamper(now)
	addGitDir := func(rel string, top bool) {
		for _, e := range gitDirProtected {
			if top && (e == "hooks" || e == "config" || e == "info") {
				continue // in protectedPaths already
			}
			out = append(out, protectedPath{rel: rel + "/" + e, optional: true})
		}
		for _, sub := range gitDirsBelowBuf(filepath.Join(ws, rel), buf, "modules", "worktrees") {
			for _, e := range gitDirProtected {
				out = append(out, protectedPath{rel: rel + "/" + sub + "/" + e, optional: true})
			}
		}
	}
	if isDir(filepath.Join(ws, ".git")) {
		addGitDir(".git", true)
	}
	type dir struct {
		rel   string
		depth int
	}
	queue := []dir{{"", 0}}
	for read := 0; len(queue) > 0 && read < gitSearchDirs; read++ {
		d := queue[0]
		queue = queue[1:]
		path := ws
		if d.rel != "" {
			path = ws + "/" + d.rel
		}
		ents, stamp, ok := listDir(path, d.rel != "", buf, stamps, prev, d.rel)
		if ok {
			next.dirs[d.rel] = cachedListing{stamp, ents}
		}
		descend := d.depth+1 < gitSearchDepth
		for _, e := range ents {
			rel := e.name
			if d.rel != "" {
				rel = d.rel + "/" + e.name
			}
			switch {
			case e.name == ".git" && e.dir:
				addGitDir(rel, false)
			case e.name == ".git":
				out = append(out, protectedPath{rel: rel, optional: true})
				if g := separateGitDir(ws, rel); g != "" {
					addGitDir(g, false)
				}
			case descend:
				queue = append(queue, dir{rel, d.depth + 1})
			}
		}
	}
	return out, next
}

// separateGitDir returns, relative to ws, the git dir that the .git file
// ws/rel points at (git init --separate-git-dir) when it lies in the
// workspace outside every .git (submodules' and worktrees' git dirs are
// found under their .git already) and holds a HEAD; "" otherwise.
func separateGitDir(ws, rel string) string {
	data, ok := readGitFile(filepath.Join(ws, rel))
	if !ok {
		return ""
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(ws, filepath.Dir(rel), g)
	}
	g = realPath(g)
	r, err := filepath.Rel(ws, g)
	if err != nil || !under(g, ws) || g == ws || contains(strings.Split(filepath.ToSlash(r), "/"), ".git") {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(g, "HEAD")); err != nil {
		return ""
	}
	return filepath.ToSlash(r)
}

// listDir returns the entries of the directory at path that the search
// keeps (subdirectories not in gitSearchSkip; a .git when withGit), in name
// order: from prev when the directory's stamp there is the one it has now,
// else read. ok says the listing may serve the next search: its stamp is
// trustworthy and the directory was read whole.
func listDir(path string, withGit bool, buf []byte, stamps *stamper, prev *searchCache, rel string) (ents []searchEntry, stamp dirStamp, ok bool) {
	stamp, ok, leaf := stamps.stamp(path)
	if ok && prev != nil {
		if c, hit := prev.dirs[rel]; hit && c.stamp == stamp {
			return c.ents, stamp, true
		}
	}
	if leaf {
		// No subdirectory: the only entry the search keeps is a .git,
		// and one lstat finds it. The listing is as of the stamp, as a
		// read right after it would be.
		if !withGit {
			return nil, stamp, ok
		}
		if ents, known := leafGit(path); known {
			return ents, stamp, ok
		}
	}
	dirsRead.Add(1)
	whole := scanDir(path, buf, func(name []byte, kind entryKind) {
		switch {
		case string(name) == ".git":
			if withGit && kind != entryOther {
				ents = append(ents, searchEntry{".git", kind == entryDir})
			}
		case kind == entryDir && !gitSearchSkip[string(name)]:
			ents = append(ents, searchEntry{string(name), true})
		}
	})
	sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
	// What could not be read whole is read again next time.
	return ents, stamp, ok && whole
}

// dirsRead counts the directories the searches read (for the tests).
var dirsRead atomic.Int64

// searches keeps, per workspace, the listings of the last search for
// nested repositories in this process (a session's bash tool plans a
// command after another in the same workspace), for at most
// maxCachedSearches workspaces. It lives in this process's memory only:
// nothing a sandboxed command can write.
var searches = struct {
	sync.Mutex
	m map[string]*searchCache
}{m: map[string]*searchCache{}}

const maxCachedSearches = 8

// cachedGitPaths is nestedGitPaths(ws) with the listings of this process's
// last search of ws, keeping this search's for the next.
func cachedGitPaths(ws string) []protectedPath {
	searches.Lock()
	prev := searches.m[ws]
	searches.Unlock()
	out, next := searchGitDirs(ws, prev)
	searches.Lock()
	if _, ok := searches.m[ws]; !ok && len(searches.m) >= maxCachedSearches {
		for k := range searches.m {
			delete(searches.m, k)
			break
		}
	}
	searches.m[ws] = next
	searches.Unlock()
	return out
}

// PrewarmWorkspace starts, in the background, the search for nested
// repositories below the workspace ws (nestedGitPaths: a read of up to
// gitSearchDirs directories) that the next confined command's plan for
// that workspace would otherwise make on its critical path; a one-shot
// caller (oceancode sandbox) lets it run on another core while it loads
// its configuration. The result serves that one plan only (the first
// buildPlan for ws takes it, waiting for it if need be); every later plan
// searches again, and so does a plan made more than prewarmMaxAge after
// the call. It is no staler than a search made by the plan itself: between
// the two, only this process runs, and none of its sandboxed commands (the
// first one starts after that plan).
func PrewarmWorkspace(ws string) {
	if ws == "" || !filepath.IsAbs(ws) {
		return
	}
	ws = realPath(filepath.Clean(ws))
	now := time.Now()
	prewarmMu.Lock()
	defer prewarmMu.Unlock()
	if w := prewarmed; w != nil && w.ws == ws && now.Sub(w.at) < prewarmMaxAge {
		return // already under way
	}
	w := &prewarmedWalk{ws: ws, done: make(chan struct{}), at: now}
	prewarmed = w
	go func() {
		// No stamps: a one-shot caller makes no second plan.
		w.paths = nestedGitPaths(w.ws)
		close(w.done)
	}()
}

// prewarmedWalk is a search PrewarmWorkspace started.
type prewarmedWalk struct {
	ws    string
	at    time.Time
	done  chan struct{}
	paths []protectedPath
}

// prewarmMaxAge bounds how long a prewarmed search waits for its plan.
const prewarmMaxAge = time.Second

var (
	prewarmMu sync.Mutex
	prewarmed *prewarmedWalk
)

// workspaceGitPaths is nestedGitPaths(ws), taken from the prewarmed
// search when there is one for ws.
func workspaceGitPaths(ws string) []protectedPath {
	prewarmMu.Lock()
	w := prewarmed
	prewarmed = nil
	if w != nil && (w.ws != ws || time.Since(w.at) > prewarmMaxAge) {
		w = nil
	}
	prewarmMu.Unlock()
	if w == nil {
		return cachedGitPaths(ws)
	}
	<-w.done
	return w.paths
}

// gitDirsBelow lists, relative to gitDir, the git directories under its
// given subdirectories (a directory holding HEAD; submodule names may
// nest, and a submodule's own modules are searched too).
func gitDirsBelow(gitDir string, subdirs ...string) []string {
	return gitDirsBelowBuf(gitDir, make([]byte, scanBufSize), subdirs...)
}

func gitDirsBelowBuf(gitDir string, buf []byte, subdirs ...string) []string {
	var out []string
	queue := append([]string(nil), subdirs...)
	var names []string
	for n := 0; len(queue) > 0 && n < gitSearchDirs; n++ {
		rel := queue[0]
		queue = queue[1:]
		if strings.Count(rel, "/") > gitSearchDepth {
			continue
		}
		names = names[:0]
		scanDir(gitDir+"/"+rel, buf, func(name []byte, kind entryKind) {
			if kind == entryDir {
				names = append(names, string(name))
			}
		})
		sort.Strings(names)
		for _, name := range names {
			sub := rel + "/" + name
			if _, err := os.Lstat(gitDir + "/" + sub + "/HEAD"); err == nil {
				out = append(out, sub)
				queue = append(queue, sub+"/modules")
			} else {
				queue = append(queue, sub)
			}
		}
	}
	return out
}

// placeholder is a missing protected path the runner creates (empty, on the
// host) for the duration of a command so it can be mounted read-only, and
// removes afterwards.
type placeholder struct {
	Path string
	Dir  bool
}

// testROBinds are files this package's tests run as commands from a
// directory the sandbox hides (the test binary in /tmp, as an attack
// tool); the plan shows them read-only like the helper. Nothing else sets
// it.
var testROBinds []string

// plan is everything derived from a policy for one command.
type plan struct {
	args         []string // bwrap options, without the program name
	placeholders []placeholder
	helper       helperSpec
	// exe is the helper bubblewrap runs; exec says it is the exec helper
	// (ExecArgs, not HelperArg + Args). Unless the helper loads the seccomp
	// filter itself (helper.Seccomp), args end in "--seccomp 3": the
	// runner passes the filter as descriptor 3.
	exe      string
	exec     bool
	writable []string
	// heads are the HEAD files of the git dirs in the workspace as the
	// command starts; the runner puts back any the command removed (see
	// restoreHeads).
	heads []gitHead
}

// gitHead is a git dir's HEAD file, or a symbolic ref in it, and its
// content; dir is the git dir of a symbolic ref ("" for a HEAD: the
// path's directory).
type gitHead struct {
	path string
	data []byte
	dir  string
}

// BwrapArgs returns the bubblewrap options (everything before "--" and the
// helper) that confine a command under p. It reads the file system to find
// existing paths (protected paths, credential stores, git worktrees) but
// changes nothing; missing protected paths appear as read-only binds of
// paths the runner creates just before it starts bubblewrap.
func BwrapArgs(p Policy, env Env) ([]string, error) {
	pl, err := buildPlan(p, env)
	if err != nil {
		return nil, err
	}
	return pl.args, nil
}

// ErrNotConfined is returned when a confining function is given a policy
// that asks for no sandbox.
var ErrNotConfined = errors.New("sandbox: policy is not confined")

func buildPlan(p Policy, env Env) (*plan, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !p.Confined() {
		return nil, ErrNotConfined
	}
	home := env.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	helper := env.Helper
	if helper == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: locate helper executable: %w", err)
		}
		helper = exe
	}
	helper = realPath(helper)
	ws := realPath(filepath.Clean(p.Workspace))
	if !isDir(ws) {
		return nil, fmt.Errorf("sandbox: workspace %s: not a directory", p.Workspace)
	}
	home = realPath(home)
	mode := p.EffectiveMode()
	net := p.EffectiveNetwork()
	b := &argBuilder{}
	pl := &plan{}
	// The exec helper runs the command unless a network allowlist needs
	// the Go helper's forwarder. Either helper only confines itself
	// (limits, Landlock, sometimes seccomp) and execs: bubblewrap makes
	// every mount, and no helper holds a capability.
	pl.exec = env.ExecHelper != "" && net != NetworkAllowlist

	// Namespaces: everything bubblewrap supports, always a new user
	// namespace (the child is never host root), and no nested ones:
	// bubblewrap's --disable-userns, and the seccomp filter refuses them
	// as well (helper.SeccompFilter).
	b.add("--unshare-all", "--unshare-user", "--disable-userns")
	if net == NetworkOn {
		b.add("--share-net")
	}
	var egressSock string
	if net == NetworkAllowlist {
		egressSock = env.EgressSocket
		if egressSock == "" && p.Egress != nil {
			egressSock = p.Egress.SocketPath()
		}
		if egressSock == "" {
			return nil, fmt.Errorf("sandbox: %w: start an egress.Proxy for the session and set Policy.Egress", ErrNoEgressProxy)
		}
	}
	b.add("--die-with-parent", "--new-session", "--cap-drop", "ALL")
	b.add("--ro-bind", "/", "/")
	b.add("--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys")
	if sysExists("/proc/sysrq-trigger") {
		b.add("--ro-bind", "/proc/sysrq-trigger", "/proc/sysrq-trigger")
	}

	// Private temp directories and /run (daemon sockets: docker, dbus,
	// systemd, ssh and gpg agents under /run/user).
	temps := []string{"/tmp"}
	if p.TempDir != "" {
		b.add("--bind", realPath(p.TempDir), "/tmp")
	} else {
		b.add("--tmpfs", "/tmp")
	}
	if sysIsDir("/var/tmp") {
		b.add("--tmpfs", "/var/tmp")
		temps = append(temps, "/var/tmp")
	}
	if t := env.getenv("TMPDIR"); t != "" && filepath.IsAbs(t) {
		t = realPath(filepath.Clean(t))
		if isDir(t) && !under(t, "/tmp") && !under(t, "/var/tmp") && !under(t, ws) && t != "/" {
			b.add("--tmpfs", t)
			temps = append(temps, t)
		}
	}
	// over: what the mounts so far put over the host's view; the helper
	// needs its own bind only when it lies under one of them.
	over := append([]string{"/dev", "/proc"}, temps...)
	if sysIsDir("/run") {
		b.add("--tmpfs", "/run")
		over = append(over, "/run")
		if fi, err := sysLstat("/var/run"); err == nil && fi.IsDir() {
			b.add("--tmpfs", "/var/run")
			over = append(over, "/var/run")
		}
		if net == NetworkOn {
			// Name resolution: /etc/resolv.conf often points into /run.
			if r, err := sysEvalSymlinks("/etc/resolv.conf"); err == nil && (under(r, "/run") || under(r, "/var/run")) {
				b.add("--ro-bind", r, r)
			}
		}
	}
	// The egress proxy's socket, where the helper's forwarder finds it.
	egressInside := ""
	if egressSock != "" {
		egressInside = egressSocketInside
		if !sysIsDir("/run") {
			egressInside = egressSocketInsideNoRun
		}
		b.add("--ro-bind", egressSock, egressInside)
		over = append(over, egressInside)
	}
	// Both helpers are protected where they lie in a writable root (see
	// below), whichever runs this command: the other may run the next.
	helpers := []string{helper}
	if env.ExecHelper != "" {
		helpers = append(helpers, realPath(env.ExecHelper))
		if pl.exec {
			helper = helpers[1]
		}
	}
	pl.exe = helper
	for _, s := range []string{"/var/lib/lxd/unix.socket", "/var/snap/lxd/common/lxd/unix.socket"} {
		if sysExists(s) {
			b.add("--ro-bind", "/dev/null", s)
			over = append(over, s)
		}
	}
	// The helper, when a mount above hides it (a build in /tmp); anywhere
	// else the read-only root shows it already and a bind would change
	// nothing. The writable roots come after: a helper inside one is the
	// host's file either way.
	if coveredBy(helper, over) {
		b.add("--ro-bind", helper, helper)
	}
	for _, t := range testROBinds {
		if coveredBy(t, over) {
			b.add("--ro-bind", t, t)
		}
	}

	// Writable roots, parents before children.
	type root struct {
		path string
		kind rootKind
	}
	var roots []root // roots that get protected paths
	if mode == ModeWorkspaceWrite {
		b.add("--bind", ws, ws)
		pl.writable = append(pl.writable, ws)
		roots = append(roots, root{path: ws, kind: workspaceRoot})
		var extra []string
		for _, w := range p.Writable {
			w = realPath(expand(w, home, ws))
			if isDir(w) && w != "/" && w != ws {
				extra = append(extra, w)
			}
		}
		gitDirs := worktreeGitDirs(ws)
		extra = dedupe(append(extra, gitDirs...))
		kindOf := func(w string) rootKind {
			switch {
			case len(gitDirs) > 1 && w == gitDirs[1]:
				return gitCommonRoot
			case len(gitDirs) > 0 && w == gitDirs[0]:
				return gitPrivateRoot
			}
			return extraRoot
		}
		sort.Strings(extra)
		for _, w := range extra {
			b.add("--bind", w, w)
			pl.writable = append(pl.writable, w)
			roots = append(roots, root{path: w, kind: kindOf(w)})
		}
	} else {
		b.add("--ro-bind", ws, ws)
	}
	var caches []string
	if home != "" && home != "/" {
		for _, c := range packageCaches {
			caches = append(caches, filepath.Join(home, c))
		}
	}
	for _, k := range []string{"GOMODCACHE", "GOCACHE"} {
		if v := env.getenv(k); filepath.IsAbs(v) {
			caches = append(caches, filepath.Clean(v))
		}
	}
	for _, c := range dedupe(caches) {
		if !isDir(c) { // most are missing: one stat, not a walk of every component
			continue
		}
		c = realPath(c)
		if c == "/" || c == home || coveredBy(c, pl.writable) {
			continue
		}
		b.add("--bind", c, c)
		pl.writable = append(pl.writable, c)
	}

	// Protected paths inside the workspace-like writable roots, after the
	// writable binds so they win.
	seen := map[string]bool{}
	var heads []string
	var prot []selfBind // bubblewrap makes them before the masks (see below)
	for _, r := range roots {
		for _, pp := range protectedFor(r.path, r.kind) {
			prot = protect(prot, pl, r.path, pp, home, seen)
			if g, ok := strings.CutSuffix(pp.rel, "/packed-refs"); ok || pp.rel == "packed-refs" {
				if !ok {
					g = "."
				}
				heads = append(heads, filepath.Join(r.path, g, "HEAD"))
			}
		}
	}
	pl.heads = readHeads(dedupe(heads))
	// The helpers themselves when they lie in a writable root (a build in
	// the workspace): protected like .git/config, or the command could
	// replace one on the host and a later command would start unconfined
	// code before Landlock.
	for _, h := range helpers {
		for _, r := range pl.writable {
			if rel, err := filepath.Rel(r, h); err == nil && under(h, r) && h != r {
				prot = protect(prot, pl, r, protectedPath{rel: filepath.ToSlash(rel), optional: true}, home, seen)
				break
			}
		}
	}

	// Deny roots: unreadable and unwritable, even inside the workspace.
	var masks []string
	for _, d := range p.Deny {
		masks = append(masks, expand(d, home, ws))
	}
	for _, d := range p.DenyRead {
		masks = append(masks, expand(d, home, ws))
	}
	if home != "" && home != "/" {
		for _, c := range credentialStores {
			masks = append(masks, filepath.Join(home, c))
		}
	}
	var sysMasks []mask
	for _, s := range systemSecretPaths() {
		if fi, err := sysLstat(s); err == nil && !fi.IsDir() && !sysUnreadable(s, fi) {
			sysMasks = append(sysMasks, mask{path: s})
		}
	}
	// The protected paths' self-binds, then the masks, so a mask wins
	// over a self-bind above it.
	for _, bd := range prot {
		op := "--bind"
		if bd.RO {
			op = "--ro-bind"
		}
		b.add(op, bd.Path, bd.Path)
	}
	for _, m := range append(sysMasks, masksFor(masks)...) {
		if m.dir {
			b.add("--tmpfs", m.path, "--remount-ro", m.path)
		} else {
			b.add("--ro-bind", "/dev/null", m.path)
		}
	}

	dir := ws
	if p.Dir != "" {
		dir = realPath(expand(p.Dir, home, ws))
	}
	b.add("--chdir", dir)
	if egressInside == "" {
		// bubblewrap loads the filter just before it execs the helper.
		b.add("--seccomp", "3")
	}
	pl.args = b.args

	// What the helper applies inside: Landlock, seccomp, rlimits.
	// The command may not make unix sockets unless the network is on; with
	// allowlist the helper's forwarder (threads outside the filter) makes
	// them.
	h := helperSpec{Seccomp: egressInside != "", DenyUnix: net != NetworkOn, Egress: egressInside}
	h.Landlock = newRuleset(env.LandlockABI, []string{"/"}, dedupe(append(append([]string{}, pl.writable...), temps...)), []string{"/dev"})
	l := p.EffectiveLimits()
	h.NProc = uint64(l.Processes)
	h.AS = uint64(l.AddressSpaceMB) << 20
	h.FSize = uint64(l.FileSizeMB) << 20
	h.NoFile = uint64(l.OpenFiles)
	pl.helper = h
	return pl, nil
}

type rootKind int

const (
	workspaceRoot  rootKind = iota
	extraRoot               // sandbox.writable: existing protected paths only
	gitCommonRoot           // a linked worktree's common git dir
	gitPrivateRoot          // a linked worktree's private git dir
)

// protectedFor lists the protected paths of a writable root: the standard
// list (for a linked worktree, its .git file instead of .git/…), the hooks
// and config of a worktree's common git dir, and the files of its private
// git dir that point elsewhere. Only the workspace and the common git dir
// block missing paths; in other roots missing ones are left alone.
func protectedFor(r string, kind rootKind) []protectedPath {
	var list []protectedPath
	switch kind {
	case gitCommonRoot:
		list = []protectedPath{{rel: "hooks", dir: true}, {rel: "config"}}
		for _, e := range gitDirProtected[2:] {
			list = append(list, protectedPath{rel: e, optional: true})
		}
		for _, sub := range gitDirsBelow(r, "modules", "worktrees") {
			for _, e := range gitDirProtected {
				list = append(list, protectedPath{rel: sub + "/" + e, optional: true})
			}
		}
	case gitPrivateRoot:
		for _, e := range gitDirProtected {
			list = append(list, protectedPath{rel: e})
		}
	default:
		if fi, err := os.Lstat(filepath.Join(r, ".git")); err == nil && fi.Mode().IsRegular() {
			list = append(list, protectedPath{rel: ".git"})
			for _, pp := range protectedPaths {
				if !strings.HasPrefix(pp.rel, ".git/") {
					list = append(list, pp)
				}
			}
		} else if kind == workspaceRoot && notARepository(filepath.Join(r, ".git")) {
			// A .git directory git would not open (no HEAD: empty, or
			// half made): read-only as a whole, one mount instead of a pin
			// and a placeholder for each of hooks, config and info. Nothing
			// legitimate writes there (git init would need config, which is
			// protected either way).
			list = []protectedPath{{rel: ".git", dir: true}}
			for _, pp := range protectedPaths {
				if !strings.HasPrefix(pp.rel, ".git/") {
					list = append(list, pp)
				}
			}
		} else {
			list = protectedPaths
		}
		if kind == workspaceRoot {
			for _, pp := range workspaceGitPaths(r) {
				if list[0].rel != ".git" || !strings.HasPrefix(pp.rel, ".git/") {
					list = append(list, pp)
				}
			}
		}
	}
	if kind == gitPrivateRoot || kind == extraRoot {
		out := make([]protectedPath, len(list))
		for i, pp := range list {
			pp.optional = true
			out[i] = pp
		}
		return out
	}
	return list
}

// notARepository reports a directory gitDir without a HEAD: git does not
// take it for a repository.
func notARepository(gitDir string) bool {
	fi, err := os.Lstat(gitDir)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Lstat(filepath.Join(gitDir, "HEAD"))
	return errors.Is(err, fs.ErrNotExist)
}

// selfBind is a protected path's bind onto itself: read-only (RO), or a
// writable pin (a mount point cannot be renamed or removed).
type selfBind struct {
	Path string
	RO   bool
}

// protect write-protects r/pp.rel, appending its self-binds to binds:
// ancestors between r and the path are pinned (bound onto themselves, so
// renaming them fails with EBUSY) and the path is bound read-only. A
// missing path is blocked at its first missing component, which becomes a
// placeholder.
func protect(binds []selfBind, pl *plan, r string, pp protectedPath, home string, seen map[string]bool) []selfBind {
	parts := strings.Split(pp.rel, "/")
	cur := r
	for i, part := range parts {
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		last := i == len(parts)-1
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return binds
			}
			if pp.homeOnly && r != home {
				return binds
			}
			if pp.optional {
				return binds
			}
			if seen[next] {
				return binds
			}
			seen[next] = true
			pl.placeholders = append(pl.placeholders, placeholder{Path: next, Dir: !last || pp.dir})
			return append(binds, selfBind{Path: next, RO: true})
		}
		if last {
			if seen[next] {
				return binds
			}
			seen[next] = true
			if fi.Mode()&fs.ModeSymlink != 0 {
				// Protect what the link points at when it stays inside a
				// writable root; outside one it is read-only anyway.
				t, err := filepath.EvalSymlinks(next)
				if err != nil || !coveredBy(t, pl.writable) {
					return binds
				}
				next = t
			}
			return append(binds, selfBind{Path: next, RO: true})
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			return binds
		}
		if !seen["pin:"+next] {
			seen["pin:"+next] = true
			binds = append(binds, selfBind{Path: next})
		}
		cur = next
	}
	return binds
}

type mask struct {
	path string
	dir  bool
}

// masksFor resolves the paths to mask: existing ones (and the targets of
// symlinks), deduplicated, parents before children, children of a masked
// directory dropped.
func masksFor(paths []string) []mask {
	var out []mask
	seen := map[string]bool{}
	addOne := func(p string) {
		fi, err := os.Stat(p)
		if err != nil || seen[p] {
			return
		}
		seen[p] = true
		out = append(out, mask{path: p, dir: fi.IsDir()})
	}
	for _, p := range paths {
		p = filepath.Clean(p)
		if p == "/" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue // missing (most credential stores): nothing to mask, one stat
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			addOne(r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	var kept []mask
	for _, m := range out {
		covered := false
		for _, k := range kept {
			if k.dir && under(m.path, k.path) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, m)
		}
	}
	return kept
}

// worktreeGitDirs returns the git directories of a linked worktree at ws
// (its private git dir and the common dir), which live outside it.
func worktreeGitDirs(ws string) []string {
	data, err := os.ReadFile(filepath.Join(ws, ".git"))
	if err != nil {
		return nil
	}
	line := strings.TrimSpace(string(data))
	gitdir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return nil
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(ws, gitdir)
	}
	gitdir = realPath(gitdir)
	if !isDir(gitdir) {
		return nil
	}
	out := []string{gitdir}
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		if cd = realPath(cd); isDir(cd) && cd != "/" {
			out = append(out, cd)
		}
	}
	return out
}

type argBuilder struct{ args []string }

func (b *argBuilder) add(a ...string) { b.args = append(b.args, a...) }

// expand resolves "~" and "~/x" against home and relative paths against ws.
func expand(p, home, ws string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(ws, p)
}

// realPath resolves symlinks when the path exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// under reports whether p is root or inside it.
func under(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

func coveredBy(p string, roots []string) bool {
	for _, r := range roots {
		if under(p, r) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
