// Package schema holds OceanCode's JSON Schemas (draft 2020-12) and validates config, managed config and
// requirements payloads against them.
//
// The *.schema.json files in this directory are the source of truth: they are embedded into the binary,
// printed by `oceanadmin schema`, compiled once per process (each when first needed) and used by the
// loader and by `oceanadmin validate`. managed.schema.json and requirements.schema.json reuse the $defs of
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
// small interpreter instead. It has no package-level initialisation work. On first use of a schema (once
// per process) it decodes that embedded document, and those it refers to, and compiles them into a tree of
// nodes: a process that validates only config files never decodes the managed and requirements schemas.
// All three together take about 0.35 ms and 200 KB (BenchmarkCompile); a regular expression is compiled
// when a value or key first meets it. Validation walks the tree.
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
	"sync/atomic"
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
func (k Kind) FileName() string {
	switch k { // constants for the embedded kinds: ID is asked for on every validation and MergeOf
	case Config:
		return "config.schema.json"
	case Managed:
		return "managed.schema.json"
	case Requirements:
		return "requirements.schema.json"
	}
	return string(k) + ".schema.json"
}

// ID returns the schema's $id.
func (k Kind) ID() string {
	switch k {
	case Config:
		return BaseURL + "config.schema.json"
	case Managed:
		return BaseURL + "managed.schema.json"
	case Requirements:
		return BaseURL + "requirements.schema.json"
	}
	return BaseURL + k.FileName()
}

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

// compiled is a snapshot of the embedded documents decoded and compiled so far. It never changes once
// published; compiling another document publishes a new one.
type compiled struct {
	raw   map[string]any   // $id → decoded document, for every document compiled so far
	roots map[string]*node // $id → the document's root schema
	// nodes is every schema compiled so far, by location ("$id#pointer"). It is the compiler's own map,
	// which later loads add to: read it only in a snapshot of every document (load), as the tests do.
	nodes map[string]*node
	err   error // an embedded document could not be parsed or compiled (a build defect)
}

var (
	loadMu   sync.Mutex               // held while compiling
	embedded *compiler                // the compiler of the embedded documents (under loadMu)
	current  atomic.Pointer[compiled] // the latest snapshot
)

// load returns the three embedded documents, decoded and compiled.
func load() *compiled { return loadFor(Config, Managed, Requirements) }

// loadFor returns a snapshot that holds the documents of kinds (and those they refer to), decoding and
// compiling them first if this process has not yet: each document once, on first use. A command that
// only validates config files never decodes the managed and requirements schemas.
func loadFor(kinds ...Kind) *compiled {
	if c := current.Load(); c.has(kinds) {
		return c
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	if c := current.Load(); c.has(kinds) {
		return c
	}
	if embedded == nil {
		embedded = newCompiler(map[string]any{}, decodeEmbedded)
	}
	var err error
	for _, k := range kinds {
		if err = embedded.compileDoc(k.ID()); err != nil {
			break
		}
	}
	if err == nil {
		err = embedded.checkCycles()
	}
	c := embedded.snapshot(err)
	current.Store(c)
	return c
}

// has reports whether c holds the documents of kinds, or an error that stands for every document.
func (c *compiled) has(kinds []Kind) bool {
	if c == nil {
		return false
	}
	if c.err != nil {
		return true // a build defect: every later load reports it
	}
	for _, k := range kinds {
		if c.roots[k.ID()] == nil {
			return false
		}
	}
	return true
}

// snapshot publishes what c has compiled.
func (c *compiler) snapshot(err error) *compiled {
	s := &compiled{raw: make(map[string]any, len(c.compiled)), roots: make(map[string]*node, len(c.compiled)), nodes: c.nodes, err: err}
	for id := range c.compiled {
		s.raw[id] = c.docs[id]
		s.roots[id] = c.nodes[id+"#"]
	}
	return s
}

// decodeEmbedded decodes the embedded document with $id id.
func decodeEmbedded(id string) (any, bool, error) {
	for _, k := range Kinds() {
		if k.ID() == id {
			v, err := decodeSchemaDoc(k.text())
			if err != nil {
				return nil, true, fmt.Errorf("schema: load %s: %w", k.FileName(), err)
			}
			return v, true, nil
		}
	}
	return nil, false, nil
}

// compileEmbedded decodes and compiles the three embedded documents with a compiler of its own: what the
// first validation against each of them costs a process (BenchmarkCompile).
func compileEmbedded() *compiled {
	c := newCompiler(map[string]any{}, decodeEmbedded)
	var err error
	for _, k := range Kinds() {
		if err = c.compileDoc(k.ID()); err != nil {
			break
		}
	}
	if err == nil {
		err = c.checkCycles()
	}
	return c.snapshot(err)
}

// schemaFor returns the compiled root schema of k.
func schemaFor(k Kind) (*node, error) {
	if !k.valid() {
		return nil, errUnknownKind(k)
	}
	c := loadFor(k)
	if c.err != nil {
		return nil, c.err
	}
	return c.roots[k.ID()], nil
}
