package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/instructions"
	"github.com/oceancode/oceancode/internal/termtext"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/sessionconfig"
)

func newInspectInstructionsCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "instructions",
		Short: "List the instruction files (AGENTS.md, CLAUDE.md) a session here puts in the prompt",
		Long: `Lists every instruction file a session started in this directory puts in the
system prompt — the user's, the project root's and each directory's down to
here, with their @imports — with its layer, its bytes in the prompt and what
a cap cut, then every refused import (a cycle, "..", a path outside the
project, a secrets file). A subdirectory's file joins later, when a tool
first touches that directory. See docs/instructions.md.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := loadConfig(app, nil)
			if err != nil {
				return err
			}
			rep, err := instructionsReport(app, res)
			if err != nil {
				return err
			}
			if asJSON {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				_, err = app.Stdout.Write(append(b, '\n'))
				return err
			}
			return writeInstructions(app.Stdout, rep, homeAbbrev(app))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON (docs/instructions.md)")
	return cmd
}

// instructionsReport discovers the instruction files of a session started
// in the process's directory.
func instructionsReport(app *App, res *layers.Resolved) (instructions.Report, error) {
	dir, err := app.WorkDir()
	if err != nil {
		return instructions.Report{}, err
	}
	dir, _ = filepath.Abs(dir)
	ic, err := sessionconfig.InstructionsConfig(res, app.Getenv, dir)
	if err != nil {
		return instructions.Report{}, fmt.Errorf("inspect instructions: %w", err)
	}
	return instructions.Discover(ic).Report(), nil
}

// writeInstructions prints the report as a table; every name is
// sanitised (a repository's file names are untrusted).
func writeInstructions(w io.Writer, rep instructions.Report, abbrev []report.Abbrev) error {
	show := func(s string) string {
		for _, a := range abbrev {
			s = strings.ReplaceAll(s, a.Dir+string(filepath.Separator), a.Name+string(filepath.Separator))
		}
		return termtext.Line(s)
	}
	if rep.Off != "" {
		_, err := fmt.Fprintf(w, "Instruction files are off: %s\n", show(rep.Off))
		return err
	}
	fmt.Fprintf(w, "Instruction files in the prompt: %d, %d bytes (caps: %d per file, %d in total)\n",
		len(rep.Files), rep.Bytes, rep.MaxFileBytes, rep.MaxTotalBytes)
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	for _, f := range rep.Files {
		name := show(f.Name)
		if f.ImportedBy != "" {
			name += " (imported by " + show(f.ImportedBy) + ")"
		}
		cut := ""
		if f.Cut != "" {
			cut = "cut: " + f.Cut
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d bytes\t%s\n", f.Layer, name, f.Bytes, cut)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(table.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	if len(rep.Notices) > 0 {
		fmt.Fprintln(w, "Notices:")
		for _, n := range rep.Notices {
			fmt.Fprintf(w, "  %s  %s: %s\n", n.Kind, show(n.File), show(n.Text))
		}
	}
	_, err := fmt.Fprintln(w, "A subdirectory's AGENTS.md joins when a tool first touches that directory.")
	return err
}
