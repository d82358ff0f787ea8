package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
)

type trustOptions struct {
	revoke, list bool
}

func newTrustCmd(app *App) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "trust [PATH]",
		Short: "Trust a workspace's project config (or --revoke, --list)",
		Long: `Trust the project config of the workspace at PATH (default: the working
directory's project): its .oceancode/oceancode.json, .oceancode/oceancode.local.json
and .mcp.json then apply in full — allow rules, the permission mode, sandbox
loosening, MCP servers, providers, child_env, refs, safe_list_extra,
shell.allow. In a workspace that is not trusted only the keys that tighten
apply and every other one is named (docs/trust.md).

The record (in the state directory, 0600) holds the workspace's path and the
digest of its loosening config: when that config changes, the workspace is
untrusted again until it is reviewed and trusted again.

Exit status: 0 done, 1 error, 5 the requirements' project_config forbids
trusting workspaces (tighten-only or signed).`,
		Example: `  oceancode inspect                 # review what the project would loosen
  oceancode trust                   # trust this project as its config is now
  oceancode trust --list
  oceancode trust --revoke ~/src/x`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			path := ""
			if len(a) == 1 {
				path = a[0]
			}
			return runTrust(app, o, path)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.revoke, "revoke", false, "drop the workspace's trust record")
	f.BoolVar(&o.list, "list", false, "list the trusted workspaces")
	cmd.MarkFlagsMutuallyExclusive("revoke", "list")
	return cmd
}

func runTrust(app *App, o trustOptions, path string) error {
	state := layers.StateDir(app.Getenv)
	if state == "" {
		return exitcode.With(exitcode.Error, errors.New("trust: no state directory (set HOME or XDG_STATE_HOME) to keep trust records in"))
	}
	store := layers.NewTrustStore(state)
	if o.list {
		if path != "" {
			return exitcode.With(exitcode.Usage, errors.New("trust --list takes no PATH"))
		}
		return listTrust(app.Stdout, store)
	}
	dir, err := trustDir(app, path)
	if err != nil {
		return err
	}
	res := layers.Resolve(readOnly(layerOptions(app, dir)))
	ws := res.Workspace
	if o.revoke {
		ok, err := store.Revoke(ws.Root)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(app.Stdout, "workspace %s was not trusted\n", ws.Root)
			return nil
		}
		fmt.Fprintf(app.Stdout, "revoked the trust of workspace %s\n", ws.Root)
		return nil
	}
	if ws.ProjectConfig != layers.ProjectConfigTrust {
		return exitcode.With(exitcode.Denied, fmt.Errorf("trust workspace %s: the requirements' project_config is %s, so workspaces cannot be trusted by hand (docs/trust.md)", ws.Root, ws.ProjectConfig))
	}
	if err := res.Err(); err != nil {
		return exitcode.With(exitcode.Invalid, fmt.Errorf("trust workspace %s: %w", ws.Root, err))
	}
	if len(ws.Loosening) == 0 {
		fmt.Fprintf(app.Stdout, "workspace %s: its project config loosens nothing; there is nothing to trust\n", ws.Root)
		return nil
	}
	if err := store.Trust(ws.Root, ws.Digest, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "trusted workspace %s (%s); its project config now applies in full:\n", ws.Root, ws.Digest)
	for _, k := range ws.Loosening {
		fmt.Fprintf(app.Stdout, "  %s\n", k)
	}
	return nil
}

// trustDir is the directory whose workspace trust acts on: PATH, else the
// working directory.
func trustDir(app *App, path string) (string, error) {
	if path == "" {
		dir, err := app.WorkDir()
		if err != nil {
			return "", exitcode.With(exitcode.Error, err)
		}
		return dir, nil
	}
	if !filepath.IsAbs(path) {
		wd, err := app.WorkDir()
		if err != nil {
			return "", exitcode.With(exitcode.Error, err)
		}
		path = filepath.Join(wd, path)
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return "", exitcode.With(exitcode.Usage, fmt.Errorf("trust %s: not a directory", path))
	}
	return path, nil
}

func listTrust(w io.Writer, store *layers.TrustStore) error {
	recs, err := store.List()
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		fmt.Fprintln(w, "no trusted workspaces")
		return nil
	}
	for _, r := range recs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Root, r.TrustedAt.Format(time.RFC3339), r.Digest)
	}
	return nil
}

// askTrust is the pager's question before it opens on a workspace whose
// project config would loosen the session and that is not trusted: it
// shows exactly what would loosen, and "y" records the trust (the sessions
// the pager opens then apply it); anything else keeps this session
// tighten-only. Nothing is asked when the requirements' project_config
// leaves the user no choice, or when nothing would loosen.
func askTrust(app *App, in io.Reader, out io.Writer, ws *layers.Workspace) error {
	if ws == nil || ws.Trusted() || len(ws.Ignored) == 0 || ws.ProjectConfig != layers.ProjectConfigTrust {
		return nil
	}
	fmt.Fprintf(out, "The project config of %s would loosen this session or run code:\r\n", ws.Root)
	for _, k := range ws.Ignored {
		fmt.Fprintf(out, "  %s\r\n", k)
	}
	fmt.Fprintf(out, "Trust this workspace and apply them? Answer no to open it with only the keys that tighten. [y/N] ")
	line, _ := readLine(in)
	if line != "y" && line != "yes" {
		fmt.Fprintf(out, "\r\nnot trusted: this session applies only the keys that tighten\r\n")
		return nil
	}
	if err := layers.NewTrustStore(layers.StateDir(app.Getenv)).Trust(ws.Root, ws.Digest, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(out, "\r\ntrusted %s\r\n", ws.Root)
	return nil
}

// readLine reads one line byte by byte (no buffering past it: the pager
// reads the same terminal next), trimmed and lower-cased.
func readLine(in io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 64 {
		n, err := in.Read(one)
		if n == 1 {
			if one[0] == '\n' || one[0] == '\r' {
				break
			}
			b = append(b, one[0])
		}
		if err != nil {
			return strings.ToLower(strings.TrimSpace(string(b))), err
		}
	}
	return strings.ToLower(strings.TrimSpace(string(b))), nil
}

// keepTrust runs edit, a change to the project's loosening config that the
// user makes through oceancode itself (mcp add, mcp remove): a workspace
// whose trust record matched before the edit is recorded again with the
// config as edited, so the user's own change does not untrust it. An
// edit by anything else still does.
func keepTrust(app *App, root string, edit func() error) error {
	state := layers.StateDir(app.Getenv)
	resolve := func() *layers.Workspace {
		return layers.Resolve(readOnly(layerOptions(app, root))).Workspace
	}
	before := resolve()
	if err := edit(); err != nil {
		return err
	}
	if state == "" || before == nil || before.Digest == "" {
		return nil
	}
	store := layers.NewTrustStore(state)
	rec, ok, err := store.Lookup(before.Root)
	if err != nil || !ok || rec.Digest != before.Digest {
		return nil
	}
	after := resolve()
	if after.Digest == "" {
		return nil
	}
	return store.Trust(after.Root, after.Digest, time.Now())
}

// readOnly is o for a load that reads the anti-rollback state but never
// writes it.
func readOnly(o layers.Options) layers.Options {
	o.StateReadOnly = true
	return o
}
