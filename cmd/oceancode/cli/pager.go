package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server/client"
	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/secretenv"
	"github.com/oceancode/oceancode/internal/sibling"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
	"github.com/oceancode/oceancode/sessionfactory"
)

// errNoTerminal is what `oceancode` without a terminal says (exit 2).
var errNoTerminal = errors.New("no terminal on stdin/stdout: use `oceancode run PROMPT` for a headless run")

// pagerOptions are the root command's flags: the pager's session.
type pagerOptions struct {
	session      string
	cont         bool
	model        string
	agent        string
	trustProject bool
	draw         func(context.Context, PagerHost) error // Options.RunPager
}

// pagerRoot makes the root command open the pager when it is given no
// command (docs/cli.md, docs/pager.md).
func pagerRoot(root *cobra.Command, app *App, draw func(context.Context, PagerHost) error) {
	o := pagerOptions{draw: draw}
	root.RunE = func(cmd *cobra.Command, a []string) error {
		if len(a) > 0 {
			return exitcode.With(exitcode.Usage, fmt.Errorf("unknown command %q for \"oceancode\" (oceancode --help lists them)", a[0]))
		}
		if o.session != "" && o.cont {
			return exitcode.With(exitcode.Usage, errors.New("--session and --continue: give one (--continue takes the most recent session of this directory)"))
		}
		return runPager(cmd.Context(), app, o)
	}
	f := root.Flags()
	f.StringVar(&o.session, "session", "", "open the pager on this stored session")
	f.BoolVar(&o.cont, "continue", false, "open the pager on the most recent session of this directory")
	f.StringVar(&o.model, "model", "", "PROVIDER/MODEL (default: the config's model)")
	f.StringVar(&o.agent, "agent", "", "build, plan or a custom agent (default: build)")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this workspace's project config for this session (refused when the requirements' project_config forbids it; docs/trust.md)")
}

// terminals returns stdin and stdout as terminals, or errNoTerminal.
func terminals(app *App) (*os.File, *os.File, error) {
	in, ok1 := app.Stdin.(*os.File)
	out, ok2 := app.Stdout.(*os.File)
	if !ok1 || !ok2 || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil, nil, exitcode.With(exitcode.Usage, errNoTerminal)
	}
	return in, out, nil
}

// historyFile is the pager's prompt history: $XDG_STATE_HOME/oceancode/history.
func historyFile(app *App) string {
	return filepath.Join(layers.StateDir(app.Getenv), "history")
}

// PagerHost is what the pager needs from the CLI — where it draws and the
// sessions it may open — in types every oceancode command links anyway.
type PagerHost struct {
	In, Out     *os.File
	Root        string            // the project root (@file completion)
	Refs        map[string]string // the @ref aliases
	HistoryFile string
	// In process: First is the session to open with; Open opens another
	// ("" = a new one, /clear), Inspect and Sessions serve /inspect and
	// /sessions.
	First    *runner.Session
	Open     func(ctx context.Context, id string) (*runner.Session, error)
	Inspect  func() ([]byte, error)
	Sessions func(ctx context.Context) ([]session.Session, error)
	// Attached (oceancode attach): the server's client and the session to
	// open with (ID); Addr names the server in errors.
	Client *client.Client
	ID     string
	Addr   string
}

// PagerBinary is the companion that draws the pager.
const PagerBinary = "oceancode-pager"

// execPager replaces this process with oceancode-pager (same arguments,
// the environment oceancode started with, secrets included).
func execPager() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("open the pager: find this executable: %w", err)
	}
	path, ok := sibling.Find(self, PagerBinary)
	if !ok {
		return fmt.Errorf("open the pager: %s is not installed beside %s (install it with oceancode, or use `oceancode run PROMPT`)", PagerBinary, self)
	}
	return execReplace(path, append([]string{path}, os.Args[1:]...), secretenv.Environ())
}

// runPager opens the pager on an interactive session in process: built as
// serve builds its sessions (the same checks, asks go to the pager).
func runPager(ctx context.Context, app *App, o pagerOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	in, out, err := terminals(app)
	if err != nil {
		return err
	}
	if o.draw == nil {
		return execPager()
	}
	res, err := loadConfigTrust(app, nil, layers.TrustOptions{Project: o.trustProject})
	if err != nil {
		return err
	}
	if err := sessionGate(res); err != nil {
		return err
	}
	if err := askTrust(app, in, out, res.Workspace); err != nil {
		return err
	}
	store, err := openStore(ctx, app)
	if err != nil {
		return err
	}
	defer store.Close()
	resume := o.session
	if o.cont {
		if resume, err = latestSession(ctx, store, app); err != nil {
			return err
		}
	}
	fc, err := factoryConfig(app, pinTrust(o.trustProject, res))
	if err != nil {
		return err
	}
	clients := sessionfactory.NewPool(nil)
	defer clients.Close()
	fc.Store, fc.Clients, fc.Via, fc.Interactive = store, clients, "pager", true
	f := sessionfactory.New(fc)
	defer f.Close()
	cwd := fc.WorkDir
	open := func(ctx context.Context, id string) (*runner.Session, error) {
		req := sessionfactory.Request{Resume: id, Request: sessionconfig.Request{Agent: o.agent, Model: o.model}}
		sess, err := f.Open(ctx, req)
		if err != nil {
			return nil, pagerNotice(id, err)
		}
		return sess, nil
	}
	first, err := open(ctx, resume)
	if err != nil {
		return err
	}
	root := res.ProjectRoot
	if root == "" {
		root = cwd
	}
	refs, _, err := sessionconfig.Refs.Decode(res)
	if err != nil {
		first.Close()
		return err
	}
	return o.draw(ctx, PagerHost{In: in, Out: out, Root: root, Refs: refs, HistoryFile: historyFile(app),
		First: first, Open: open,
		Inspect:  func() ([]byte, error) { return inspectJSON(app) },
		Sessions: func(ctx context.Context) ([]session.Session, error) { return storedSessions(ctx, store, app) }})
}

// pagerNotices is the pager's one map from the session factory's errors to
// what it says (the notice when /sessions or /clear opens another session)
// and, for the session it opens with, the exit status.
var pagerNotices = []struct {
	kind error
	code int
	say  func(id string, err error) error
}{
	{sessionfactory.ErrNotFound, exitcode.Usage, func(id string, _ error) error {
		return fmt.Errorf("session %s: no such session ('oceancode session list' shows them)", id)
	}},
	{sessionfactory.ErrLocked, exitcode.Error, func(id string, err error) error {
		return fmt.Errorf("session %s: %w: another oceancode has it open", id, err)
	}},
	{sessionfactory.ErrRefused, exitcode.Refused, nil},
	{sessionfactory.ErrBadRequest, exitcode.Usage, nil},
	{sessionfactory.ErrInvalid, exitcode.Invalid, nil},
}

// pagerNotice gives an error of the session factory the pager's words and
// exit status.
func pagerNotice(id string, err error) error {
	for _, n := range pagerNotices {
		if errors.Is(err, n.kind) {
			if n.say != nil {
				err = n.say(id, err)
			}
			return exitcode.With(n.code, err)
		}
	}
	return err
}

// latestSession is the most recent stored session of the working
// directory (--continue).
func latestSession(ctx context.Context, st *session.Store, app *App) (string, error) {
	list, err := storedSessions(ctx, st, app)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		dir, _ := app.WorkDir()
		return "", exitcode.With(exitcode.Usage, fmt.Errorf("--continue: no session of %s yet: run oceancode without it to start one", dir))
	}
	return list[0].ID, nil
}

// storedSessions lists the stored sessions of the working directory,
// newest first (serve's GET /api/session, the pager's /sessions).
func storedSessions(ctx context.Context, st *session.Store, app *App) ([]session.Session, error) {
	cwd, err := app.WorkDir()
	if err != nil {
		return nil, err
	}
	list, err := st.List(ctx, session.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := []session.Session{}
	for _, s := range list {
		if s.Cwd == cwd {
			out = append(out, *s)
		}
	}
	return out, nil
}

type attachOptions struct {
	session   string
	tokenFile string
	draw      func(context.Context, PagerHost) error // Options.RunPager
}

func newAttachCmd(app *App, draw func(context.Context, PagerHost) error) *cobra.Command {
	o := attachOptions{draw: draw}
	cmd := &cobra.Command{
		Use:   "attach URL [--session ID] [--token-file FILE]",
		Short: "Open the pager on a session of a running `oceancode serve`",
		Long: `Opens the pager on a session of the server at URL (oceancode serve's
"listening on" address): the same pager as oceancode with no arguments, every
change (mode, approval, model, agent, MCP add) sent to that server. Without
--session a new session is created there.

The bearer token is read from --token-file, else $OCEANCODE_TOKEN, else the
state directory's server.token (the one serve writes on this machine).

Exit status: 0 on exit, 1 error (the server refused the token or the request,
or cannot be reached), 2 usage or no terminal.`,
		Example: `  oceancode attach http://127.0.0.1:4096
  oceancode attach http://127.0.0.1:4096 --session ses_06h2…   # a session open on the server`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runAttach(cmd.Context(), app, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "a session open on the server (default: create one)")
	f.StringVar(&o.tokenFile, "token-file", "", "the file holding the bearer token (default: $OCEANCODE_TOKEN, else the state dir's server.token)")
	return cmd
}

// attachToken finds the bearer token and says where it came from.
func attachToken(app *App, file string) (string, string, error) {
	from := file
	switch {
	case file != "":
	case app.Getenv("OCEANCODE_TOKEN") != "":
		return strings.TrimSpace(app.Getenv("OCEANCODE_TOKEN")), "$OCEANCODE_TOKEN", nil
	default:
		from = filepath.Join(layers.StateDir(app.Getenv), "server.token")
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return "", from, fmt.Errorf("read the token %s: %w (pass --token-file or set OCEANCODE_TOKEN)", from, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", from, fmt.Errorf("read the token %s: the file is empty", from)
	}
	return tok, from, nil
}

// runAttach checks the server, the token and the session first (so a
// refusal is said before the screen changes), then opens the pager.
func runAttach(ctx context.Context, app *App, addr string, o attachOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if u, err := url.Parse(addr); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return exitcode.With(exitcode.Usage, fmt.Errorf("attach %s: want the server's address, http://HOST:PORT (serve prints it)", addr))
	}
	tok, from, err := attachToken(app, o.tokenFile)
	if err != nil {
		return fmt.Errorf("attach %s: %w", addr, err)
	}
	c, err := client.New(addr, tok)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("attach %s: %w", addr, err))
	}
	c.Label = "attach"
	_, _, err = c.Sessions(ctx)
	switch {
	case errors.Is(err, client.ErrUnauthorized):
		return fmt.Errorf("attach %s: the server refused the token from %s: use the token of that server (its stderr names the file)", addr, from)
	case errors.Is(err, client.ErrForbidden):
		return fmt.Errorf("attach %s: the server refused this request's address: %w", addr, err)
	case err != nil:
		return fmt.Errorf("attach %s: %w", addr, err)
	}
	id := o.session
	if id != "" {
		if _, err := c.State(ctx, id); err != nil {
			return fmt.Errorf("attach %s: session %s: %w", addr, id, err)
		}
	}
	in, out, err := terminals(app)
	if err != nil {
		return err
	}
	if o.draw == nil {
		return execPager()
	}
	if id == "" {
		st, err := c.Create(ctx, client.CreateRequest{})
		if err != nil {
			return fmt.Errorf("attach %s: create a session: %w", addr, err)
		}
		id = st.ID
	}
	cwd, _ := app.WorkDir()
	return o.draw(ctx, PagerHost{In: in, Out: out, Root: cwd, HistoryFile: historyFile(app), Client: c, ID: id, Addr: addr})
}
