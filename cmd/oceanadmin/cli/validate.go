package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/signing"
)

type validateOptions struct {
	kind string
	json bool
}

type validateFile struct {
	File       string             `json:"file"`
	Kind       string             `json:"kind"`
	Valid      bool               `json:"valid"`
	Violations []schema.Violation `json:"violations,omitempty"`
	Error      string             `json:"error,omitempty"`
}

func newValidateCmd(app *App) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate FILE... [--kind config|managed|requirements]",
		Short: "Validate config, managed or requirements files against the schemas",
		Long: `Validates each FILE against its embedded JSON Schema and prints every
violation as FILE:LINE:COL: /json/pointer: message. The kind is taken from
--kind, else from the name: requirements*.json is requirements, a path with
"managed" in it is managed, anything else is config. For requirements, a
signed envelope's payload is checked (its signature is not: use verify) and an
unsigned policy may leave out serial, issued_at and expires_at.

Exit status 3 when any file is invalid.`,
		Example: `  oceanadmin validate managed.json managed.d/*.json
  oceanadmin validate --kind requirements policy.json`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			return runValidate(app, o, files)
		},
	}
	cmd.Flags().StringVar(&o.kind, "kind", "", "config, managed or requirements (default: from the file name)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON report")
	return cmd
}

func runValidate(app *App, o validateOptions, files []string) error {
	if o.kind != "" {
		if _, err := schema.Source(schema.Kind(o.kind)); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("validate: --kind %q: want config, managed or requirements", o.kind))
		}
	}
	var results []validateFile
	bad := 0
	for _, f := range files {
		kind := schema.Kind(o.kind)
		if kind == "" {
			kind = kindOf(f)
		}
		r := validateOne(f, kind)
		if !r.Valid {
			bad++
		}
		results = append(results, r)
	}
	if o.json {
		b, _ := json.MarshalIndent(struct {
			Version int            `json:"version"`
			Files   []validateFile `json:"files"`
		}{1, results}, "", "  ")
		fmt.Fprintf(app.Stdout, "%s\n", b)
	} else {
		for _, r := range results {
			switch {
			case r.Valid:
				fmt.Fprintf(app.Stdout, "ok %s (%s)\n", r.File, r.Kind)
			case r.Error != "":
				fmt.Fprintf(app.Stdout, "%s\n", r.Error)
			default:
				for _, v := range r.Violations {
					fmt.Fprintf(app.Stdout, "%s\n", v.Error())
				}
			}
		}
	}
	if bad > 0 {
		return &exitcode.Err{Code: exitcode.Invalid, Silent: o.json,
			Err: fmt.Errorf("validate: %d of %d file(s) invalid: fix the problems listed above", bad, len(files))}
	}
	return nil
}

func kindOf(path string) schema.Kind {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasPrefix(base, "requirements") || strings.Contains(base, "policy"):
		return schema.Requirements
	case strings.Contains(strings.ToLower(path), "managed"):
		return schema.Managed
	}
	return schema.Config
}

func validateOne(file string, kind schema.Kind) validateFile {
	r := validateFile{File: file, Kind: string(kind)}
	data, err := os.ReadFile(file)
	if err != nil {
		r.Error = fmt.Sprintf("%s: %v", file, err)
		return r
	}
	if kind == schema.Requirements {
		payload, signed, name := data, false, file
		if looksLikeEnvelope(data) {
			env, err := signing.ParseEnvelope(data)
			if err != nil && !errors.Is(err, signing.ErrUnsigned) {
				r.Error = fmt.Sprintf("%s: %v", file, err)
				return r
			}
			payload, signed, name = env.Payload, true, file+" (payload)"
		}
		_, err := requirements.Parse(payload, requirements.ParseOptions{File: name, Signed: signed})
		var ie *requirements.InvalidError
		switch {
		case errors.As(err, &ie):
			r.Violations = ie.Violations
		case err != nil:
			r.Error = err.Error()
		default:
			r.Valid = true
		}
		return r
	}
	viol, err := schema.Validate(kind, file, data)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Violations = viol
	r.Valid = len(viol) == 0
	return r
}
