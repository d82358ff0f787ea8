package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/skills"
	"github.com/oceancode/oceancode/internal/termtext"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/sessionconfig"
)

// commandLines are a command event as run's text format shows it on
// stderr: which command ran and from where, then each notice.
func commandLines(c *engineapi.CommandUse) []string {
	if c == nil {
		return nil
	}
	out := []string{fmt.Sprintf("/%s (%s %s)", c.Name, c.Layer, c.Path)}
	for _, n := range c.Notices {
		out = append(out, "oceancode: "+n)
	}
	return out
}

// newInspectCommandsCmd is `oceancode inspect commands`: every custom
// command and skill with its layer and file, and each one not used with
// why (docs/commands.md).
func newInspectCommandsCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "commands",
		Short: "List the custom commands and skills, where each came from, and those not used",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := loadConfig(app, nil)
			if err != nil {
				return err
			}
			model, _, _, _ := sessionconfig.Model.Get(res)
			prov, _, _ := strings.Cut(model, "/")
			c := sessionconfig.LoadCustom(res, app.Getenv, prov)
			if asJSON {
				return writeJSON(app, customJSON{Commands: nonNil(c.Commands.List), Skills: nonNil(c.Skills.List),
					DroppedCommands: nonNil(c.Commands.Dropped), DroppedSkills: nonNil(c.Skills.Dropped)})
			}
			writeCustom(app.Stdout, c)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// customJSON is `inspect commands --json`.
type customJSON struct {
	Commands        []commands.Command `json:"commands"`
	Skills          []skills.Skill     `json:"skills"`
	DroppedCommands []commands.Dropped `json:"dropped_commands"`
	DroppedSkills   []commands.Dropped `json:"dropped_skills"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeCustom(w io.Writer, c sessionconfig.Custom) {
	fmt.Fprintf(w, "Commands (%d)\n", len(c.Commands.List))
	for _, k := range c.Commands.List {
		fmt.Fprintf(w, "  /%-20s %s %s\n", k.Name, k.Layer, k.Path)
		if k.Description != "" {
			fmt.Fprintf(w, "  %-21s %s\n", "", termtext.Line(k.Description))
		}
	}
	fmt.Fprintf(w, "Skills (%d)\n", len(c.Skills.List))
	for _, s := range c.Skills.List {
		fmt.Fprintf(w, "  %-21s %s %s\n  %-21s %s\n", s.Name, s.Layer, s.Dir, "", termtext.Line(s.Description))
	}
	if d := c.Dropped(); len(d) > 0 {
		fmt.Fprintf(w, "Not used (%d)\n", len(d))
		for _, l := range d {
			fmt.Fprintf(w, "  %s\n", termtext.Line(l))
		}
	}
}

// addCustomDrops names, under the report's locks, each command and skill
// the requirements' managed-only keys dropped (the rest of what is not
// used is in `inspect commands`).
func addCustomDrops(app *App, res *layers.Resolved, rep *report.Report) {
	if rep.Locks == nil || rep.Locks.Commands == "" && rep.Locks.Skills == "" {
		return
	}
	for _, l := range sessionconfig.LoadCustom(res, app.Getenv, "").Dropped() {
		if strings.Contains(l, "allow_managed_") {
			rep.Locks.DroppedCustom = append(rep.Locks.DroppedCustom, l)
		}
	}
}
