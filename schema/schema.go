// Package schema holds OceanCode's JSON Schemas (draft 2020-12) and validates config, managed config and
// requirements payloads against them.
//
// The *.schema.json files in this directory are the source of truth: they are embedded into the binary,
// printed by `oceanadmin schema`, compiled once per process and used by the loader and by
// `oceanadmin validate`. managed.schema.json and requirements.schema.json reuse the $defs of
// config.schema.json, so each setting is defined once.
//
// Validate parses a file with internal/jsonpos (strict JSON: duplicate keys and trailing data are errors)
// and returns every violation, each with its JSON Pointer, line and column and a message a person can act
// on. Unknown keys are reported as violations with UnknownKey set and a pointer at the key itself, so the
// loader can treat them as warnings in project and user files and as errors in managed files.
//
// # Why we interpret the schemas ourselves
//
// `oceancode` has a start-up budget: `oceancode --version` in 5 ms and `oceancode inspect --json` (parse and
// validate four small files) in 10 ms, whole process. A general JSON Schema library does not fit it: the
// package init of github.com/santhosh-tekuri/jsonschema/v6, which compiles every draft's metaschema, took
// 6–10 ms and 1.7 MB in 21,000 allocations (GODEBUG=inittrace=1) in every process that linked it, even
// `--version`; compiling our three schemas with it took another ~5 ms and 1.6 MB. So this package carries a
// small interpreter instead. It has no package-level initialisation work; on first use (once per process)
// it decodes the three embedded documents and compiles them into a tree of nodes, about 0.4 ms and 200 KB
// (BenchmarkCompile; regular expressions are compiled when first needed), and validation walks that tree.
//
// The interpreter implements exactly the draft 2020-12 keywords the embedded schemas use (see
// docs/schema.md): type, enum, const, format (date-time and uri, as assertions), $ref and $defs (within and
// across the three documents), properties, patternProperties, additionalProperties, required, items,
// minItems, maxItems, uniqueItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
// maxLength, pattern, minProperties, maxProperties, allOf, anyOf and oneOf. Annotations (title,
// description, default, examples, $comment and every x-* key) are not assertions. Any other keyword makes
// compiling fail, so a schema edit that needs more cannot be silently ignored: TestSchemasCompile fails.
//
// The library is kept as the reference, in tests only: they compile the same embedded text with it and
// require both validators to agree (valid or not, and the instance locations and details of every error)
// on the test files, the bad cases of the tests, thousands of mutated and generated documents, every
// $defs entry on its own, and a fuzz target (FuzzDifferential). Numbers are compared exactly, as the
// library does, but without its big-number arithmetic: 1e999999 costs us microseconds, not 100 ms.
//
// Beyond standard JSON Schema the files carry a few annotations (ignored by other validators):
//
//   - x-merge: how a key combines across config layers: replace (default), append or union; see MergeOf.
//   - x-pattern-message: the message used when a string does not match the schema's pattern.
//   - x-key-pattern-message: the message used when a map key does not match its patternProperties.
//   - x-key-messages: per-key messages for keys that are deliberately not allowed in an object.
package schema

import (
	"embed"
	"fmt"
	"sync"
)

// Kind names one of the embedded schemas.
type Kind string

// The embedded schemas.
const (
	Config       Kind = "config"       // project and user config files
	Managed      Kind = "managed"      // the administrator's managed config
	Requirements Kind = "requirements" // the payload of the signed requirements envelope
)

// BaseURL is the prefix of every schema's $id.
const BaseURL = "https://oceancode.dev/schema/"

//go:embed config.schema.json managed.schema.json requirements.schema.json
var files embed.FS

// The same files as strings, which the compiler decodes without copying (see decodeSchemaDoc).
var (
	//go:embed config.schema.json
	configText string
	//go:embed managed.schema.json
	managedText string
	//go:embed requirements.schema.json
	requirementsText string
)

func (k Kind) text() string {
	switch k {
	case Config:
		return configText
	case Managed:
		return managedText
	case Requirements:
		return requirementsText
	}
	return ""
}

// Kinds returns the schema kinds in a stable order.
func Kinds() []Kind { return []Kind{Config, Managed, Requirements} }

func (k Kind) valid() bool { return k == Config || k == Managed || k == Requirements }

// FileName returns the schema's file name, e.g. "config.schema.json".
func (k Kind) FileName() string { return string(k) + ".schema.json" }

// ID returns the schema's $id.
func (k Kind) ID() string { return BaseURL + k.FileName() }

// Source returns the raw text of the schema for k, as embedded.
func Source(k Kind) ([]byte, error) {
	if !k.valid() {
		return nil, errUnknownKind(k)
	}
	return files.ReadFile(k.FileName())
}

func errUnknownKind(k Kind) error {
	return fmt.Errorf("schema: unknown kind %q (want config, managed or requirements)", k)
}

// compiled is the embedded schemas, decoded and compiled.
type compiled struct {
	raw   map[string]any   // $id → decoded schema document
	nodes map[string]*node // "$id#pointer" → compiled schema (the roots are at "$id#")
	err   error            // the embedded documents could not be parsed or compiled (a build defect)
}

var (
	loadOnce sync.Once
	state    *compiled
)

// load parses and compiles the embedded documents, once per process, on first use.
func load() *compiled {
	loadOnce.Do(func() { state = compileEmbedded() })
	return state
}

// compileEmbedded parses the three embedded documents and compiles them together (they refer to each
// other). It is the whole cost of a first Validate beyond the document itself; see BenchmarkCompile.
func compileEmbedded() *compiled {
	c := &compiled{raw: make(map[string]any, 3)}
	for _, k := range Kinds() {
		v, err := decodeSchemaDoc(k.text())
		if err != nil {
			c.err = fmt.Errorf("schema: load %s: %w", k.FileName(), err)
			return c
		}
		c.raw[k.ID()] = v
	}
	c.nodes, c.err = compileDocs(c.raw)
	return c
}

// schemaFor returns the compiled root schema of k.
func schemaFor(k Kind) (*node, error) {
	if !k.valid() {
		return nil, errUnknownKind(k)
	}
	c := load()
	if c.err != nil {
		return nil, c.err
	}
	return c.nodes[k.ID()+"#"], nil
}
