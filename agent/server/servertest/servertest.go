// Package servertest holds what the tests of the HTTP API share (package
// tests over httptest and the end-to-end tests of `oceancode serve`): an
// SSE reader that keeps each event's exact bytes, and a validator against
// the schemas of the API's own OpenAPI document. Tests only: it links the
// JSON Schema validator, which the binaries must not.
package servertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Event is one SSE event as read off the wire.
type Event struct {
	ID   string
	Data string
	Raw  string // its bytes: the id and data lines and the blank line
}

// Type is the type field of the event's data.
func (e Event) Type() string {
	var v struct{ Type string }
	json.Unmarshal([]byte(e.Data), &v)
	return v.Type
}

// Read sends the events of an SSE stream to ch until the stream ends
// (comments are skipped; an event without data is dropped).
func Read(r io.Reader, ch chan<- Event) {
	br := bufio.NewReader(r)
	var cur Event
	var raw strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		switch {
		case line == "\n":
			if cur.Data != "" {
				cur.Raw = raw.String() + "\n"
				ch <- cur
			}
			cur = Event{}
			raw.Reset()
		case strings.HasPrefix(line, ":"):
		default:
			raw.WriteString(line)
			k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
			switch k {
			case "id":
				cur.ID = v
			case "data":
				cur.Data += v
			}
		}
	}
}

// Stream reads an SSE body in the background: its events arrive on the
// returned channel (buffered for buffer events), which closes, with the
// body, when the stream ends.
func Stream(body io.ReadCloser, buffer int) <-chan Event {
	ch := make(chan Event, buffer)
	go func() {
		defer close(ch)
		defer body.Close()
		Read(body, ch)
	}()
	return ch
}

// Types lists the events' types, space-separated.
func Types(es []Event) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Type())
	}
	return strings.Join(out, " ")
}

// Join is the events' bytes, in order.
func Join(es []Event) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Raw)
	}
	return b.String()
}

// Schemas validates JSON against the components.schemas of an OpenAPI
// document (formats asserted).
type Schemas struct {
	mu  sync.Mutex
	c   *jsonschema.Compiler
	m   map[string]*jsonschema.Schema
	Doc []byte
}

const docURL = "mem:///openapi.json"

// NewSchemas loads an OpenAPI document.
func NewSchemas(doc []byte) (*Schemas, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(docURL, v); err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	return &Schemas{c: c, m: map[string]*jsonschema.Schema{}, Doc: doc}, nil
}

// Compile compiles the named schema.
func (s *Schemas) Compile(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch := s.m[name]; sch != nil {
		return sch, nil
	}
	sch, err := s.c.Compile(docURL + "#/components/schemas/" + name)
	if err != nil {
		return nil, err
	}
	s.m[name] = sch
	return sch, nil
}

// Check reports an error on t when data (JSON) does not match the named
// schema.
func (s *Schemas) Check(t testing.TB, name string, data []byte) {
	t.Helper()
	sch, err := s.Compile(name)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%q is not JSON: %v", data, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not match the documented schema %s: %v", data, name, err)
	}
}
