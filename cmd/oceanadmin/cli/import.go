package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/atomicfile"
	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/packaging"
	"github.com/oceancode/oceancode/schema"
)

type importOptions struct {
	from  string
	out   string
	force bool
}

// importers are the formats import reads.
var importers = map[string]func([]byte) (*packaging.Imported, error){
	"claude": packaging.ImportClaude,
	"codex":  packaging.ImportCodex,
}

func newImportCmd(app *App) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import --from claude|codex FILE -o DIR [--force]",
		Short: "Import another agent's managed policy into managed.json and an unsigned policy",
		Long: `Reads a Claude Code managed-settings.json (--from claude) or a Codex
requirements.toml (--from codex) and writes DIR/managed.json (the managed
config) and DIR/policy.json (an unsigned requirements policy, ready for
'oceanadmin sign'), then checks both with the code of 'oceanadmin validate'.
The paths written go to stdout; every key of FILE that did not map, or only
in part, goes to stderr as "not mapped: KEY: reason" or "partly mapped: KEY:
reason", so nothing is dropped silently.

What maps (docs/fleet.md has the full table): permission allow rules into
managed.json's permission map; ask and deny rules, the bypass lock-out, the
weakest allowed sandbox mode and MCP allow-lists into policy.json (enforced,
as they were at the source); sandbox, env and filesystem deny lists into
managed.json. An MCP allow-list whose entries do not map becomes an empty
list: no server runs until you add it (fail closed).

Exit status: 2 a bad flag, a missing FILE or outputs that exist without
--force; 3 FILE cannot be parsed, or the result does not validate.`,
		Example: `  oceanadmin import --from claude /etc/claude-code/managed-settings.json -o imported
  oceanadmin import --from codex /etc/codex/requirements.toml -o imported
  oceanadmin sign -k admin.key imported/policy.json -o requirements.json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runImport(app, o, a[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "the input's format: claude (managed-settings.json) or codex (requirements.toml)")
	f.StringVarP(&o.out, "output", "o", "", "directory to write managed.json and policy.json into")
	f.BoolVar(&o.force, "force", false, "replace managed.json and policy.json in DIR")
	_ = cmd.MarkFlagRequired("from")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runImport(app *App, o importOptions, file string) error {
	conv, ok := importers[o.from]
	if !ok {
		return exitcode.With(exitcode.Usage, fmt.Errorf("import --from %q: want claude or codex", o.from))
	}
	data, err := readInput(file, "file")
	if err != nil {
		return err
	}
	if len(data) > schema.MaxConfigSize {
		return exitcode.With(exitcode.Invalid, fmt.Errorf("import %s: larger than %d bytes", file, schema.MaxConfigSize))
	}
	res, err := conv(data)
	if err != nil {
		return exitcode.With(exitcode.Invalid, fmt.Errorf("import %s: %w: is it a %s file? (--from)", file, err, map[string]string{"claude": "managed-settings.json", "codex": "requirements.toml"}[o.from]))
	}
	managed, policy := filepath.Join(o.out, "managed.json"), filepath.Join(o.out, "policy.json")
	if !o.force {
		for _, p := range []string{managed, policy} {
			if _, err := os.Lstat(p); err == nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("import -o %s: %s already exists: choose another -o or pass --force", o.out, p))
			}
		}
	}
	if err := makeOutputDir("import", o.out); err != nil {
		return err
	}
	for _, u := range res.Unmapped {
		fmt.Fprintf(app.Stderr, "oceanadmin: import: %s\n", u)
	}
	var problems []string
	for _, w := range []struct {
		path string
		data []byte
		kind schema.Kind
	}{{managed, res.Managed, schema.Managed}, {policy, res.Policy, schema.Requirements}} {
		if err := atomicfile.Write(w.path, w.data, 0o644); err != nil {
			return fmt.Errorf("import: %w: choose a writable -o", err)
		}
		fmt.Fprintln(app.Stdout, w.path)
		r := validateOne(w.path, w.kind)
		for _, v := range r.Violations {
			problems = append(problems, v.Error())
		}
		if r.Error != "" {
			problems = append(problems, r.Error)
		}
	}
	if len(problems) > 0 {
		return exitcode.With(exitcode.Invalid, fmt.Errorf("import %s: the result does not validate; fix these in the files written:\n%s", file, strings.Join(problems, "\n")))
	}
	fmt.Fprintf(app.Stderr, "oceanadmin: import: %d key(s) not mapped or partly mapped (listed above); next: review %s, then 'oceanadmin sign -k KEY %s -o requirements.json'\n", len(res.Unmapped), managed, policy)
	return nil
}
