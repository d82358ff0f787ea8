package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/schema"
)

func newSchemaCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:       "schema config|managed|requirements",
		Short:     "Print an embedded JSON Schema",
		Long:      "Prints the JSON Schema (draft 2020-12) oceancode validates files against, for editors and CI.",
		Args:      args(cobra.ExactArgs(1)),
		ValidArgs: []string{"config", "managed", "requirements"},
		RunE: func(cmd *cobra.Command, a []string) error {
			b, err := schema.Source(schema.Kind(a[0]))
			if err != nil {
				var names []string
				for _, k := range schema.Kinds() {
					names = append(names, string(k))
				}
				return exitcode.With(exitcode.Usage, fmt.Errorf("schema %q: unknown kind (want one of %s)", a[0], strings.Join(names, ", ")))
			}
			_, err = app.Stdout.Write(b)
			return err
		},
	}
}
