package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/sandbox"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/sessionconfig"
)

// knownKey checks a KEY argument of inspect: a key no layer set is either
// one the schema knows (said on stderr: it has no value here) or no key at
// all, a usage error naming it with the schema's did-you-mean.
func knownKey(app *App, res *layers.Resolved, key string) error {
	for k := range res.Entries {
		if provenance.HasPrefix(k, key) {
			return nil
		}
	}
	segs, err := provenance.SplitKey(key)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("inspect %s: %w", key, err))
	}
	// A document that sets just this key, checked against the config schema.
	var doc any
	for i := len(segs) - 1; i >= 0; i-- {
		doc = map[string]any{segs[i]: doc}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	vs, err := schema.Validate(schema.Config, key, data)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if v.UnknownKey {
			return exitcode.With(exitcode.Usage, fmt.Errorf("inspect %s: no such key: %s (keys: docs/schema.md, 'oceanadmin schema config')", key, v.Message))
		}
	}
	fmt.Fprintf(app.Stderr, "oceancode: inspect %s: no layer sets this key, so it has no value here (defaults: docs/schema.md)\n", key)
	return nil
}

type inspectOptions struct {
	json        bool
	layersOnly  bool
	showSecrets bool
}

func newInspectCmd(app *App) *cobra.Command {
	var o inspectOptions
	cmd := &cobra.Command{
		Use:   "inspect [KEY...]",
		Short: "Show the effective configuration and which layer set each key",
		Long: `Shows the effective configuration with the provenance of every key: the layer
(default, project, user, session, managed, requirements), the file, line and
column that set it, what it overrode, whether requirements pin it, and values
that were refused. The header shows whether requirements.json was verified.

KEY narrows the output to keys with that prefix and prints each key's whole
override chain. inspect always runs, even when sessions are refused.`,
		Example: `  oceancode inspect
  oceancode inspect sandbox permission.bash
  oceancode inspect --json > support-ticket.json`,
		RunE: func(cmd *cobra.Command, keys []string) error {
			return runInspect(app, o, keys)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the stable JSON object (docs/configuration.md)")
	f.BoolVar(&o.layersOnly, "layers", false, "print only the requirements status and the layers")
	f.BoolVar(&o.showSecrets, "show-secrets", false, "do not redact secret-looking values")
	cmd.AddCommand(newInspectCommandsCmd(app))
	cmd.AddCommand(newInspectInstructionsCmd(app))
	return cmd
}

func runInspect(app *App, o inspectOptions, keys []string) error {
	res, err := loadConfig(app, nil)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := knownKey(app, res, k); err != nil {
			return err
		}
	}
	rep := inspectReport(app, res, keys, o.showSecrets)
	if o.layersOnly {
		rep.DropKeys()
	}
	if o.json {
		if dir, err := app.WorkDir(); err == nil && !o.layersOnly {
			rep.Usage = usageTotals(context.Background(), app, res, dir)
		}
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = app.Stdout.Write(b)
		return err
	}
	return rep.Text(app.Stdout, len(keys) > 0)
}

// inspectReport is the report inspect prints (and serve's GET
// /api/config/inspect answers, as JSON).
func inspectReport(app *App, res *layers.Resolved, keys []string, showSecrets bool) *report.Report {
	rep := report.Build(res, report.Options{Prefixes: keys, ShowSecrets: showSecrets, Abbrev: homeAbbrev(app)})
	rep.Sandbox = sandboxView(res)
	addMCPRefusals(app, res, rep)
	addCustomDrops(app, res, rep)
	if ir, err := instructionsReport(app, res); err == nil && (len(ir.Files) > 0 || len(ir.Notices) > 0 || ir.Off != "") {
		rep.Instructions = ir
	}
	return rep
}

// inspectJSON is the `inspect --json` document of the configuration as it
// resolves now (secrets redacted).
func inspectJSON(app *App) ([]byte, error) {
	dir, err := app.WorkDir()
	if err != nil {
		return nil, err
	}
	res := layers.Resolve(layerOptions(app, dir))
	return inspectReport(app, res, nil, false).JSON()
}

// homeAbbrev shows paths below the home directory as ~/….
func homeAbbrev(app *App) []report.Abbrev {
	if h := app.Getenv("HOME"); h != "" {
		return []report.Abbrev{{Dir: h, Name: "~"}}
	}
	return nil
}

// sandboxView says what the configured sandbox is and whether it can run
// here (a quick check: nothing is executed).
func sandboxView(res *layers.Resolved) *report.Sandbox {
	pol, _, err := sessionconfig.Sandbox.Decode(res)
	if err != nil {
		return &report.Sandbox{Configured: "unreadable sandbox configuration: " + err.Error()}
	}
	v := &report.Sandbox{Configured: pol.Describe()}
	if pol.Confined() {
		s := sandbox.QuickDetect()
		v.Available, v.Problem, v.Warnings = s.Problem == "", s.Problem, s.Warnings
		if v.Problem != "" {
			v.Problem += "; until then bash commands are refused, never run unconfined"
		}
	}
	return v
}
