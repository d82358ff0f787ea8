package schema

// The reference validator: github.com/santhosh-tekuri/jsonschema/v6, compiled from the same embedded
// text, used only by tests (see differential_test.go). Its leaf errors are converted to this package's
// verror so that both validators' results can be compared detail by detail and rendered by the same
// reporter.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

var (
	oracleOnce    sync.Once
	oracleSchemas map[string]*jsonschema.Schema
	oracleErr     error
)

// Compiled returns the reference library's compiled schema for k, compiled once from the embedded text
// (tests only: the package itself validates with its own interpreter).
func Compiled(k Kind) (*jsonschema.Schema, error) {
	if !k.valid() {
		return nil, errUnknownKind(k)
	}
	oracleOnce.Do(func() {
		c := load()
		if c.err != nil {
			oracleErr = c.err
			return
		}
		oracleSchemas, oracleErr = oracleCompile(c.raw, Config.ID(), Managed.ID(), Requirements.ID())
	})
	if oracleErr != nil {
		return nil, oracleErr
	}
	return oracleSchemas[k.ID()], nil
}

// oracleCompile compiles the schemas at locs (a document's $id, or $id#pointer) of documents keyed by $id
// with the library, as the package did before it had its own validator: draft 2020-12, format
// assertions on, nothing loaded from outside.
func oracleCompile(docs map[string]any, locs ...string) (map[string]*jsonschema.Schema, error) {
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	comp.UseLoader(noLoader{})
	for id, doc := range docs {
		if err := comp.AddResource(id, doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, loc := range locs {
		s, err := comp.Compile(loc)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", loc, err)
		}
		out[loc] = s
	}
	return out, nil
}

// noLoader refuses to fetch anything: every schema the embedded ones refer to is embedded too.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only embedded schemas are used", url)
}

// oracleValidate validates v with the library and converts its error tree. panicked reports a library
// panic (it has a few on numbers math/big refuses), which callers treat as "no verdict".
func oracleValidate(c *compiled, s *jsonschema.Schema, v any) (errs []*verror, panicked bool, err error) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	verr := s.Validate(v)
	if verr == nil {
		return nil, false, nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return nil, false, verr
	}
	errs, err = fromLibrary(c, ve)
	return errs, false, err
}

// fromLibrary converts a library error tree: wrappers (schema, group, $ref, allOf) are flattened, a failed
// oneOf/anyOf keeps one list of errors per alternative, and leaves get their kind and details.
func fromLibrary(c *compiled, e *jsonschema.ValidationError) ([]*verror, error) {
	flatten := func(causes []*jsonschema.ValidationError) ([]*verror, error) {
		var out []*verror
		for _, cause := range causes {
			errs, err := fromLibrary(c, cause)
			if err != nil {
				return nil, err
			}
			out = append(out, errs...)
		}
		return out, nil
	}
	at, _ := c.lookup(e.SchemaURL)
	v := &verror{loc: slices.Clone(e.InstanceLocation), at: at}
	if v.loc == nil {
		v.loc = []string{}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		return flatten(e.Causes)
	case *kind.OneOf, *kind.AnyOf:
		v.kind = kAnyOf
		if o, ok := k.(*kind.OneOf); ok {
			v.kind = kOneOf
			if len(o.Subschemas) > 0 {
				return []*verror{v}, nil // ambiguous
			}
		}
		v.branches = [][]*verror{}
		for _, cause := range e.Causes {
			b, err := flatten([]*jsonschema.ValidationError{cause})
			if err != nil {
				return nil, err
			}
			v.branches = append(v.branches, b)
		}
	case *kind.Type:
		v.kind, v.names = kType, k.Want
	case *kind.Const:
		v.kind, v.values = kConst, []any{k.Want}
	case *kind.Enum:
		v.kind, v.values = kEnum, k.Want
	case *kind.Format:
		v.kind, v.str = kFormat, k.Want
	case *kind.FalseSchema:
		v.kind = kFalse
	case *kind.Required:
		v.kind, v.names = kRequired, k.Missing
	case *kind.AdditionalProperties:
		v.kind, v.names = kAdditional, k.Properties
	case *kind.MinProperties:
		v.kind, v.want, v.got = kMinProperties, k.Want, k.Got
	case *kind.MaxProperties:
		v.kind, v.want, v.got = kMaxProperties, k.Want, k.Got
	case *kind.MinItems:
		v.kind, v.want, v.got = kMinItems, k.Want, k.Got
	case *kind.MaxItems:
		v.kind, v.want, v.got = kMaxItems, k.Want, k.Got
	case *kind.UniqueItems:
		v.kind, v.dup = kUniqueItems, k.Duplicates
	case *kind.MinLength:
		v.kind, v.want, v.got = kMinLength, k.Want, k.Got
	case *kind.MaxLength:
		v.kind, v.want, v.got = kMaxLength, k.Want, k.Got
	case *kind.Pattern:
		v.kind, v.str = kPattern, k.Want
	case *kind.Minimum:
		v.kind, v.limit = kMinimum, k.Want
	case *kind.Maximum:
		v.kind, v.limit = kMaximum, k.Want
	case *kind.ExclusiveMinimum:
		v.kind, v.limit = kExclusiveMinimum, k.Want
	case *kind.ExclusiveMaximum:
		v.kind, v.limit = kExclusiveMaximum, k.Want
	default:
		return nil, fmt.Errorf("library error kind %T at %s is not one this package implements", k, jsonpos.Pointer(e.InstanceLocation...))
	}
	return []*verror{v}, nil
}

// render writes an error list canonically, one line per error (sorted; alternatives nested in order),
// with every detail the reporter may use, including the identity of the schema object that failed.
func render(errs []*verror) []string {
	var out []string
	for _, e := range errs {
		var b strings.Builder
		fmt.Fprintf(&b, "%s@%s schema=%p", e.kind, jsonpos.Pointer(e.loc...), e.at.m)
		names := e.names
		if e.kind == kAdditional {
			names = slices.Clone(names)
			sort.Strings(names)
		}
		if names != nil {
			fmt.Fprintf(&b, " names=%q", names)
		}
		if e.values != nil {
			fmt.Fprintf(&b, " values=%s", listValues(e.values))
		}
		if e.str != "" {
			fmt.Fprintf(&b, " str=%q", e.str)
		}
		if e.limit != nil {
			fmt.Fprintf(&b, " limit=%s", e.limit.RatString())
		}
		if e.want != 0 || e.got != 0 {
			fmt.Fprintf(&b, " want=%d got=%d", e.want, e.got)
		}
		if e.kind == kUniqueItems {
			fmt.Fprintf(&b, " dup=%v", e.dup)
		}
		for i, br := range e.branches {
			fmt.Fprintf(&b, "\n  branch %d:", i)
			for _, l := range render(br) {
				b.WriteString("\n    " + strings.ReplaceAll(l, "\n", "\n    "))
			}
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}

// locations returns the set of instance locations of every error, alternatives included.
func locations(errs []*verror) map[string]bool {
	out := map[string]bool{}
	var walk func([]*verror)
	walk = func(errs []*verror) {
		for _, e := range errs {
			out[jsonpos.Pointer(e.loc...)] = true
			for _, b := range e.branches {
				walk(b)
			}
		}
	}
	walk(errs)
	return out
}
