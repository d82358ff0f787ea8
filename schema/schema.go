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
// Beyond standard JSON Schema the files carry a few annotations (ignored by other validators):
//
//   - x-merge: how a key combines across config layers: replace (default), append or union; see MergeOf.
//   - x-pattern-message: the message used when a string does not match the schema's pattern.
//   - x-key-messages: per-key messages for keys that are deliberately not allowed in an object.
package schema

import (
	"embed"
	"fmt"
	"sync"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
		return nil, fmt.Errorf("schema: unknown kind %q (want config, managed or requirements)", k)
	}
	return files.ReadFile(k.FileName())
}

type compiled struct {
	raw map[string]any // $id → decoded schema document
	err error          // the embedded documents could not be parsed (a build defect)

	mu      sync.Mutex // guards comp
	comp    *jsonschema.Compiler
	once    map[Kind]*sync.Once
	schemas map[Kind]*jsonschema.Schema
	errs    map[Kind]error
}

var (
	loadOnce sync.Once
	state    compiled
)

// load parses the embedded documents once. Compiling is per kind (see Compiled) because the library's
// compile, which validates each schema against the draft 2020-12 metaschema, costs milliseconds.
func load() *compiled {
	loadOnce.Do(func() {
		c := &state
		c.raw = map[string]any{}
		c.once = map[Kind]*sync.Once{}
		c.schemas = map[Kind]*jsonschema.Schema{}
		c.errs = map[Kind]error{}
		c.comp = jsonschema.NewCompiler()
		c.comp.DefaultDraft(jsonschema.Draft2020)
		c.comp.AssertFormat()
		c.comp.UseLoader(noLoader{})
		for _, k := range Kinds() {
			c.once[k] = new(sync.Once)
			src, err := Source(k)
			if err == nil {
				var doc *jsonpos.Doc
				if doc, err = jsonpos.Parse(src, jsonpos.Options{}); err == nil {
					c.raw[k.ID()] = doc.Value
					err = c.comp.AddResource(k.ID(), doc.Value)
				}
			}
			if err != nil && c.err == nil {
				c.err = fmt.Errorf("schema: load %s: %w", k.FileName(), err)
			}
		}
	})
	return &state
}

func (c *compiled) compile(k Kind) (*jsonschema.Schema, error) {
	if c.err != nil {
		return nil, c.err
	}
	c.once[k].Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		s, err := c.comp.Compile(k.ID())
		if err != nil {
			err = fmt.Errorf("schema: compile %s: %w", k.FileName(), err)
		}
		c.schemas[k], c.errs[k] = s, err
	})
	return c.schemas[k], c.errs[k]
}

// noLoader refuses to fetch anything: every schema the embedded ones refer to is embedded too.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema: refusing to load %s: only embedded schemas are used", url)
}

// Compiled returns the compiled schema for k. Each schema is compiled once per process, on first use;
// Compiled is safe for concurrent use.
func Compiled(k Kind) (*jsonschema.Schema, error) {
	if !k.valid() {
		return nil, fmt.Errorf("schema: unknown kind %q (want config, managed or requirements)", k)
	}
	return load().compile(k)
}
