package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/permission"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/sessionconfig"
)

func newPermissionCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permission",
		Short: "Test the permission rules against tool calls",
	}
	cmd.AddCommand(newPermissionCheckCmd(app))
	return cmd
}

type checkOptions struct {
	json   bool
	mode   string
	agent  string
	batch  string
	failOn []string
	cwd    string
}

// checkJSON is one decision of `permission check --json` (docs/permissions.md).
type checkJSON struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`
	Input   string `json:"input"`
	Action  string `json:"action"`
	Floor   bool   `json:"floor"`
	Rule    string `json:"rule"`
	Layer   string `json:"layer"`
	Source  string `json:"source"`
	Line    int    `json:"line"`
	Reason  string `json:"reason"`
	Mode    string `json:"mode"`
	// ModeNote says why the mode asked for with --mode was not used.
	ModeNote string `json:"mode_note,omitempty"`
	Agent    string `json:"agent"`
	// Unit is the segment or path that decided, when it is not the whole input.
	Unit     string   `json:"unit,omitempty"`
	Outside  []string `json:"outside_paths,omitempty"`
	Segments []string `json:"segments,omitempty"`
	Hint     string   `json:"hint,omitempty"`
}

func newPermissionCheckCmd(app *App) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check TOOL [INPUT] [--json] [--mode M] [--batch FILE]",
		Short: "Print the decision for a tool call and the rule and layer that decided",
		Long: `Loads the real configuration layers (as a session would) and prints the
decision for one tool call — allow, ask or deny — with the rule that decided
and the layer, file and line it came from.

TOOL is bash, read, write, edit, apply_patch, grep, glob, list, webfetch, mcp,
…; INPUT is the command for bash, the path for file tools, and
"<server>/<tool>" for mcp.

--batch FILE reads one INPUT per line (or "TOOL<TAB>INPUT" when TOOL is not
given; "-" is standard input; blank lines and lines starting with # are
skipped) and prints one JSON object per line, so an administrator can test a
policy against a list of commands before rolling it out.

Exit status 0 whenever the check ran, whatever the decision; --fail-on deny
(or ask, or deny,ask) exits 5 when any decision is one of those.`,
		Example: `  oceancode permission check bash 'git status && rm -rf /'
  oceancode permission check --json read .env
  oceancode permission check --mode bypassPermissions bash 'timeout 5 rm -rf /'
  oceancode permission check bash --batch commands.txt --fail-on deny`,
		Args: args(cobra.RangeArgs(0, 2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runPermissionCheck(app, o, a)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the decision as JSON")
	f.StringVar(&o.mode, "mode", "", "try a permission mode (default|acceptEdits|plan|dontAsk|bypassPermissions)")
	f.StringVar(&o.agent, "agent", "build", "the agent whose rules apply (build, plan, explore or a custom agent)")
	f.StringVar(&o.batch, "batch", "", "check every line of FILE; JSON lines out")
	f.StringSliceVar(&o.failOn, "fail-on", nil, "exit 5 when a decision is deny and/or ask")
	f.StringVar(&o.cwd, "cwd", "", "the working directory of the call (default: the current directory)")
	return cmd
}

func runPermissionCheck(app *App, o checkOptions, a []string) error {
	fail := map[string]bool{}
	for _, f := range o.failOn {
		for _, v := range strings.Split(f, ",") {
			v = strings.TrimSpace(v)
			if v != "deny" && v != "ask" {
				return exitcode.With(exitcode.Usage, fmt.Errorf("--fail-on %q: want deny, ask or deny,ask", v))
			}
			fail[v] = true
		}
	}
	if o.batch == "" && len(a) != 2 {
		return exitcode.With(exitcode.Usage, errors.New("permission check needs TOOL and INPUT, or --batch FILE (see 'oceancode permission check --help')"))
	}
	var flags []layers.Setting
	if o.mode != "" {
		if _, err := permission.ParseMode(o.mode); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("--mode: %w", err))
		}
		flags = append(flags, layers.Setting{Key: sessionconfig.PermissionMode.Path(), Value: o.mode, Source: "flag:--mode"})
	}
	res, err := loadConfig(app, flags)
	if err != nil {
		return err
	}
	if err := sessionGate(res); err != nil {
		return err
	}
	cfg, err := sessionconfig.GateConfig(res, o.agent, app.Getenv("HOME"))
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	g, err := gate.New(cfg)
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	cwd := o.cwd
	if cwd == "" {
		cwd, _ = app.WorkDir()
	}
	mode, agent := string(g.Engine().Mode()), o.agent
	// A mode asked for (with --mode, or by the configuration or the agent's
	// definition) and downgraded by requirements is said so on stderr, and
	// in every JSON decision as mode_note — in a batch too.
	modeNote := ""
	for _, d := range sessionconfig.Downgrades(res, sessionconfig.ModeKeys(o.agent)...) {
		modeNote = d.Note() + "; checking under it"
	}
	if ch := g.Engine().ModeChange(); ch.Downgraded() {
		modeNote = fmt.Sprintf("mode %s is not available: %s; checking under %s", ch.Requested, ch.Reason, ch.Effective)
	}
	if modeNote != "" {
		fmt.Fprintf(app.Stderr, "oceancode: %s\n", modeNote)
	}
	origins, err := loadMCPOrigins(app, res)
	if err != nil {
		return exitcode.With(exitcode.Invalid, err)
	}
	hit := false
	judge := func(d permission.Decision) {
		if fail[d.Action.String()] {
			hit = true
		}
	}

	if o.batch == "" {
		r := g.Check(gate.Call{Tool: a[0], Input: a[1], Cwd: cwd, MCPOrigin: origins.of(a[0], a[1])})
		judge(r.Decision)
		if o.json {
			j := toJSON(a[0], a[1], mode, agent, r)
			j.ModeNote = modeNote
			if err := writeJSON(app, j); err != nil {
				return err
			}
		} else {
			printDecision(app.Stdout, a[0], a[1], r)
		}
	} else {
		tool := ""
		if len(a) > 0 {
			tool = a[0]
		}
		if err := checkBatch(app, g, origins, o.batch, tool, cwd, mode, modeNote, agent, judge); err != nil {
			return err
		}
	}
	if hit {
		return &exitcode.Err{Code: exitcode.Denied, Err: fmt.Errorf("permission check: a decision matched --fail-on %s", strings.Join(o.failOn, ",")), Silent: o.batch != "" || o.json}
	}
	return nil
}

// batchGCPercent is the GOGC of a --batch run.
const batchGCPercent = 400

func checkBatch(app *App, g *gate.Gate, origins mcpOrigins, file, tool, cwd, mode, modeNote, agent string, judge func(permission.Decision)) error {
	var in io.Reader = app.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("read batch %s: %w", file, err)
		}
		defer f.Close()
		in = f
	}
	// A batch keeps little alive (the tables, one decision at a time) and
	// allocates a few KB per decision: at the collector's 4 MB minimum heap
	// it would run every ~400 decisions, 16% of the time. Four times that
	// heap (16 MB more at most) makes it a few percent. A GOGC the user set
	// is left alone.
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	// One write per 64 KB of decisions (about 150 lines), not per 4 KB:
	// on a pipe or a file each write is a system call.
	w := bufio.NewWriterSize(app.Stdout, 64<<10)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		t, input := tool, text
		if t == "" {
			var ok bool
			t, input, ok = strings.Cut(text, "\t")
			if !ok {
				return exitcode.With(exitcode.Usage, fmt.Errorf("read batch %s line %d: without TOOL on the command line each line must be TOOL<TAB>INPUT", file, line))
			}
		}
		r := g.Check(gate.Call{Tool: t, Input: input, Cwd: cwd, MCPOrigin: origins.of(t, input)})
		judge(r.Decision)
		j := toJSON(t, input, mode, agent, r)
		j.ModeNote = modeNote
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read batch %s line %d: %w", file, line+1, err)
	}
	return nil
}

func toJSON(tool, input, mode, agent string, r gate.Result) checkJSON {
	d := r.Decision
	j := checkJSON{Version: 1, Tool: tool, Input: input, Action: d.Action.String(), Floor: d.Floor, Reason: d.Reason,
		Mode: mode, Agent: agent, Layer: d.Origin.Layer.String(), Source: d.Origin.Source, Line: d.Origin.Line}
	j.Rule = r.Decider()
	if d.Floor {
		j.Layer, j.Source, j.Line = "default", "builtin", 0
	}
	if d.Pattern != "" && d.Pattern != input {
		j.Unit = d.Pattern
	}
	if r.Shell != nil {
		j.Outside = r.Shell.OutsidePaths
		j.Segments = r.Call.Shell.Segments // the gate has joined each segment's words
	}
	if d.Action != permission.Allow && !d.Floor && r.Guard == "" {
		j.Hint = d.Explain()
	}
	return j
}

func printDecision(w io.Writer, tool, input string, r gate.Result) {
	d := r.Decision
	fmt.Fprintf(w, "%s  %s %q\n", strings.ToUpper(d.Action.String()), tool, input)
	switch by := r.Decider(); {
	case d.Floor:
		fmt.Fprintf(w, "  decided by  the dangerous floor (no mode or rule reopens it)\n")
	case d.Rule != nil && r.Guard == "":
		fmt.Fprintf(w, "  decided by  %s  (%s)\n", by, d.Origin.String())
	case by != "":
		fmt.Fprintf(w, "  decided by  %s\n", by)
	}
	if d.Pattern != "" && d.Pattern != input {
		fmt.Fprintf(w, "  unit        %s\n", d.Pattern)
	}
	if d.Reason != "" {
		fmt.Fprintf(w, "  reason      %s\n", d.Reason)
	}
	if r.Shell != nil && len(r.Shell.OutsidePaths) > 0 {
		fmt.Fprintf(w, "  outside     %s\n", strings.Join(r.Shell.OutsidePaths, ", "))
	}
	if d.Action != permission.Allow && !d.Floor && r.Guard == "" {
		if h := d.Explain(); h != "" {
			fmt.Fprintf(w, "  to change   %s\n", h)
		}
	}
}
