package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oceancode/oceancode/internal/exitcode"
	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/policycheck"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
)

type validateOptions struct {
	kind string
	json bool
}

// validateFile is one file's entry in the --json report (docs/cli.md).
type validateFile struct {
	File string `json:"file"`
	Kind string `json:"kind"`
	// KindFrom says how the kind was chosen: "flag", "content" or "name".
	KindFrom string `json:"kind_from"`
	// Envelope is true for a DSSE envelope (its payload was checked);
	// Signed when it carries at least one signature.
	Envelope   bool               `json:"envelope,omitempty"`
	Signed     bool               `json:"signed,omitempty"`
	Valid      bool               `json:"valid"`
	Violations []schema.Violation `json:"violations,omitempty"`
	// Warnings are problems every oceancode tolerates: unknown keys in a
	// user or project config (ignored, with a warning).
	Warnings []schema.Violation `json:"warnings,omitempty"`
	Hint     string             `json:"hint,omitempty"`
	Error    string             `json:"error,omitempty"`

	code int // exit status this file calls for (0 when valid)
}

func newValidateCmd(app *App) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate FILE... [--kind config|managed|requirements]",
		Short: "Validate config, managed or requirements files exactly as every oceancode checks them",
		Long: `Checks each FILE exactly as every oceancode does before applying it — the same
size and depth caps, the embedded JSON Schema, and the same semantic checks
(pins, permission and shell rules, and for requirements the pinned allow rules
and contradictions that would stop sessions) — and prints every problem as
FILE:LINE:COL: /json/pointer: message.

The kind comes from the content: a DSSE envelope or a payload with
requirements keys (schema_version, pins, rules, …) is requirements, a "$schema"
naming a schema decides too; a config file that could be managed or a user's
or project's is taken from its name (a path with "managed" in it, else
oceancode*.json is config, else managed, the stricter). A hint on stderr says
when the kind was a guess or the name suggests another kind; --kind sets it.
For requirements, a signed envelope's payload is checked (not its signature:
use verify) and an unsigned policy may leave out serial, issued_at and
expires_at. In a config (user or project) file an unknown key is a warning,
as every oceancode treats it; in a managed file it is an error. Free text
(org, instructions, scope names and groups, agents' names, descriptions and
prompts) may not hold control characters (line breaks and tabs only in the
multi-line ones), line separators or bidirectional overrides: they reach
terminals, models and packaged artefacts (sign and package refuse them too).

Exit status: 0 all valid, 3 any file invalid, 2 a file that does not exist or
a bad --kind, 1 a file that cannot be read.`,
		Example: `  oceanadmin validate managed.json managed.d/*.json
  oceanadmin validate policy.json requirements.json
  oceanadmin validate --kind config ~/.config/oceancode/oceancode.json`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			return runValidate(app, o, files)
		},
	}
	cmd.Flags().StringVar(&o.kind, "kind", "", "config, managed or requirements (default: from the content)")
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
	bad, code := 0, exitcode.OK
	for _, f := range files {
		r := validateOne(f, schema.Kind(o.kind))
		if !r.Valid {
			bad++
			code = worse(code, r.code)
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
			if r.Hint != "" {
				fmt.Fprintf(app.Stderr, "oceanadmin: hint: %s\n", r.Hint)
			}
			for _, v := range r.Warnings {
				fmt.Fprintf(app.Stdout, "%s:%d:%d: %s: warning: %s\n", v.File, v.Line, v.Column, v.Pointer, v.Message)
			}
			switch {
			case r.Valid:
				fmt.Fprintf(app.Stdout, "ok %s (%s)\n", r.File, r.describe())
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
		return &exitcode.Err{Code: code, Silent: o.json,
			Err: fmt.Errorf("validate: %d of %d file(s) invalid: fix the problems listed above", bad, len(files))}
	}
	return nil
}

// worse orders exit statuses for a run over several files: a file that
// could not be read at all (2, 1) outranks an invalid one (3).
func worse(a, b int) int {
	rank := map[int]int{exitcode.OK: 0, exitcode.Invalid: 1, exitcode.Error: 2, exitcode.Usage: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func (r validateFile) describe() string {
	switch {
	case r.Signed:
		return r.Kind + ", signed envelope"
	case r.Envelope:
		return r.Kind + ", envelope without signatures"
	}
	return r.Kind
}

// Content kinds, finer than schema.Kind.
const (
	contentEnvelope = "envelope" // a DSSE envelope (requirements)
	contentPayload  = "payload"  // a requirements payload
	contentConfig   = "config"   // a config file: managed, user or project
	contentUnknown  = ""         // not a JSON object
)

// requirementsOnly are the payload members no config file has.
var requirementsOnly = []string{"schema_version", "serial", "issued_at", "expires_at", "on_expiry", "org", "threshold",
	"disable_bypass_permissions", "allowed_permission_modes", "min_sandbox_mode", "pins", "rules"}

// contentKind tells from the content what a file is, and the kind its
// "$schema" names (if any).
func contentKind(data []byte) (content string, declared schema.Kind) {
	var probe map[string]json.RawMessage
	if len(data) > schema.MaxConfigSize || json.Unmarshal(data, &probe) != nil {
		return contentUnknown, ""
	}
	if _, ok := probe["payloadType"]; ok {
		return contentEnvelope, schema.Requirements
	}
	if _, ok := probe["signatures"]; ok {
		if _, ok := probe["payload"]; ok {
			return contentEnvelope, schema.Requirements
		}
	}
	var ref string
	_ = json.Unmarshal(probe["$schema"], &ref)
	for _, k := range schema.Kinds() {
		if ref != "" && strings.HasSuffix(ref, "/"+string(k)+".schema.json") {
			declared = k
		}
	}
	for _, k := range requirementsOnly {
		if _, ok := probe[k]; ok {
			return contentPayload, schema.Requirements
		}
	}
	if declared == schema.Requirements {
		return contentPayload, declared
	}
	return contentConfig, declared
}

// nameKind is what a file's name suggests ("" when it suggests nothing);
// exact is true for the names the spec gives files of that kind
// (managed.json, managed.d/*.json, oceancode.json, oceancode.local.json,
// requirements.json).
func nameKind(path string) (kind schema.Kind, exact bool) {
	base := strings.ToLower(filepath.Base(path))
	dir := strings.ToLower(filepath.Base(filepath.Dir(path)))
	switch {
	case base == "requirements.json":
		return schema.Requirements, true
	case strings.HasPrefix(base, "requirements") || strings.Contains(base, "policy"):
		return schema.Requirements, false
	case base == "managed.json" || dir == "managed.d":
		return schema.Managed, true
	case strings.Contains(strings.ToLower(filepath.ToSlash(path)), "managed"):
		return schema.Managed, false
	case base == "oceancode.json" || base == "oceancode.local.json":
		return schema.Config, true
	case strings.HasPrefix(base, "oceancode") && strings.HasSuffix(base, ".json"):
		return schema.Config, false
	}
	return "", false
}

// chooseKind decides the kind a file is checked as, and the hint to give.
func chooseKind(file string, data []byte, flag schema.Kind) (kind schema.Kind, from, hint string) {
	content, declared := contentKind(data)
	byName, exact := nameKind(file)
	switch {
	case flag != "":
		kind, from = flag, "flag"
		switch {
		case content == contentEnvelope && flag != schema.Requirements:
			hint = fmt.Sprintf("%s: checked as %s (--kind), but the content is a signed requirements envelope: use --kind requirements", file, flag)
		case content == contentPayload && flag != schema.Requirements:
			hint = fmt.Sprintf("%s: checked as %s (--kind), but the content is a requirements policy (it has requirements keys such as %s): use --kind requirements", file, flag, firstRequirementsKey(data))
		case content == contentConfig && flag == schema.Requirements:
			hint = fmt.Sprintf("%s: checked as requirements (--kind), but the content has no requirements keys (schema_version, pins, rules, …): it looks like a config file; use --kind managed or --kind config", file)
		}
	case content == contentUnknown:
		// Not a JSON object: the parse error says why; the name picks the
		// checker, so the message is the one agents would give.
		kind, from = byName, "name"
		if kind == "" {
			kind = schema.Managed
		}
	case content == contentEnvelope || content == contentPayload:
		kind, from = schema.Requirements, "content"
		if byName != "" && byName != kind {
			hint = fmt.Sprintf("%s: the name suggests %s, but the content is a requirements %s: checked as requirements (--kind sets the kind)", file, byName, content)
		}
	case declared != "":
		kind, from = declared, "content"
		if byName != "" && byName != kind {
			hint = fmt.Sprintf("%s: the name suggests %s, but its \"$schema\" names %s: checked as %s (--kind sets the kind)", file, byName, declared, declared)
		}
	case byName == schema.Managed || byName == schema.Config:
		kind, from = byName, "name"
		if exact {
			break
		}
		hint = fmt.Sprintf("%s: the content fits both a managed and a user or project config: checked as %s from its name (--kind managed or --kind config sets it)", file, byName)
	default:
		kind, from = schema.Managed, "content"
		hint = fmt.Sprintf("%s: the content fits both a managed and a user or project config: checked as managed, the stricter (unknown keys are errors); pass --kind config for a user or project file", file)
		if byName == schema.Requirements {
			hint = fmt.Sprintf("%s: the name suggests requirements, but the content has no requirements keys (schema_version, pins, rules, …): checked as managed; pass --kind requirements to check it as requirements", file)
		}
	}
	return kind, from, hint
}

func firstRequirementsKey(data []byte) string {
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(data, &probe)
	for _, k := range requirementsOnly {
		if _, ok := probe[k]; ok {
			return k
		}
	}
	return "schema_version"
}

func validateOne(file string, flag schema.Kind) validateFile {
	r := validateFile{File: file, Kind: string(flag), code: exitcode.Invalid}
	data, err := readInput(file, "file")
	if err != nil {
		r.Error, r.code = err.Error(), exitcode.Code(err, exitcode.Error)
		return r
	}
	kind, from, hint := chooseKind(file, data, flag)
	r.Kind, r.KindFrom, r.Hint = string(kind), from, hint
	if kind == schema.Requirements {
		validateRequirements(&r, data)
		return r
	}
	viol, err := schema.Validate(kind, file, data)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	doc, _ := parseDoc(data)
	if doc != nil {
		viol = append(viol, policycheck.Config(file, doc)...)
		viol = append(viol, policycheck.Text(file, doc)...)
	}
	for _, v := range viol {
		// A user's or project's unknown key is ignored by every oceancode.
		if kind == schema.Config && v.UnknownKey {
			v.Message += "; every oceancode ignores the key (in a managed file it is an error)"
			r.Warnings = append(r.Warnings, v)
			continue
		}
		r.Violations = append(r.Violations, v)
	}
	r.Valid = len(r.Violations) == 0
	return r
}

// validateRequirements checks a requirements payload, or the payload of a
// signed envelope, with requirements.Parse: the check every oceancode runs.
func validateRequirements(r *validateFile, data []byte) {
	payload, signed, name := data, false, r.File
	if content, _ := contentKind(data); content == contentEnvelope || looksLikeEnvelope(data) {
		env, err := parseEnvelopeOrUnsigned(data)
		if err != nil {
			r.Error = fmt.Sprintf("%s: %v", r.File, err)
			return
		}
		payload, signed, name = env.Payload, true, r.File+" (payload)"
		r.Envelope, r.Signed = true, len(env.Signatures) > 0
	}
	_, err := requirements.Parse(payload, requirements.ParseOptions{File: name, Signed: signed})
	text := textViolations(name, payload)
	var ie *requirements.InvalidError
	switch {
	case errors.As(err, &ie):
		r.Violations = append(ie.Violations, text...)
	case err != nil:
		r.Error = err.Error()
	default:
		r.Violations = text
		r.Valid = len(text) == 0
	}
}

// readInput reads a file named on the command line. A file that does not
// exist is a usage error (exit 2): the argument is wrong. Other read errors
// are I/O errors (exit 1).
func readInput(path, what string) ([]byte, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, exitcode.With(exitcode.Usage, fmt.Errorf("read %s %s: no such file: check the path", what, path))
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory") {
			return nil, exitcode.With(exitcode.Usage, fmt.Errorf("read %s %s: it is a directory; name a file", what, path))
		}
		return nil, exitcode.With(exitcode.Error, fmt.Errorf("read %s %s: %w", what, path, err))
	}
	return data, nil
}

// parseDoc parses a config document with the caps every oceancode applies.
func parseDoc(data []byte) (*jsonpos.Doc, error) {
	return jsonpos.Parse(data, jsonpos.Options{MaxDepth: schema.MaxConfigDepth})
}
