package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// echo is a provider that answers every call at once with the last user
// text and one text event (no network), so the fuzzer exercises Serve's
// reading and writing, not HTTP.
type echo struct{}

func (echo) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (provider.Response, error) {
	if len(req.Messages) == 0 {
		return provider.Response{}, &provider.APIError{StatusCode: 400, Message: "no messages"}
	}
	text := req.Messages[len(req.Messages)-1].TextOf()
	if on != nil {
		on(provider.Event{Type: provider.TextDelta, Text: text})
	}
	return provider.Response{Message: message.Message{Role: message.Assistant, Parts: []message.Part{{Type: message.Text, Text: text}}}, StopReason: "end_turn"}, nil
}

// FuzzServe: whatever arrives on the companion's input, Serve never panics
// and never hangs; it answers well-formed calls and stops with an error on
// anything else, and every line it writes is one JSON value.
func FuzzServe(f *testing.F) {
	cfg := `{"op":"config","config":{"type":"openai","stream":true}}` + "\n"
	call := `{"op":"stream","id":1,"request":{"model":"m","messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}}` + "\n"
	for _, seed := range []string{
		cfg + call,
		cfg + call + `{"op":"cancel","id":1}` + "\n",
		cfg + `{"op":"stream","id":2,"request":{"model":"m","messages":[]}}` + "\n",
		call,
		cfg + cfg,
		`{"op":"nope"}`,
		cfg + `{"op":"stream","id":0,"request":{}}`,
		"not json",
		cfg + `{"op":"stream","id":1,"request":{"messages":[{"parts":[{"type":"text","text":"` + strings.Repeat("x", 300) + `"}]}]}}`,
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		opened := 0
		err := Serve(context.Background(), bytes.NewReader(in), &out, func(c provider.Config) (provider.Provider, error) {
			opened++
			if c.Type != "openai" {
				return nil, errors.New("unknown type")
			}
			return echo{}, nil
		})
		_ = err
		if opened > 1 {
			t.Fatalf("provider opened %d times", opened)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], `{"id":0,"ready":{"version":`) {
			t.Fatalf("first line %q, want the ready announcement", lines[0])
		}
		for _, l := range lines {
			var m fromChild
			if err := jsonUnmarshalStrict(l, &m); err != nil {
				t.Fatalf("line %q is not one answer: %v", l, err)
			}
		}
	})
}

func jsonUnmarshalStrict(line string, v any) error {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one value on the line")
	}
	return nil
}
