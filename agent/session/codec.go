package session

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/internal/jsontext"
)

// The stored form of a message is message.Message's JSON with two changes
// that make it lossless:
//
//   - tool_call.input is a JSON string holding the input's raw bytes (as the
//     model sent them: whitespace kept, even if it is not valid JSON), or
//     absent when Input is nil;
//   - a string that is not valid UTF-8 is written {"base64": "..."} instead,
//     since a JSON string cannot carry it.
//
// Everything else (field names, nil versus empty parts) follows
// message.Message, so the stored text reads like the vocabulary it records.
// The export document carries messages in this same form.

// appendMessage appends m's stored form to b.
func appendMessage(b []byte, m message.Message) []byte {
	b = append(b, `{"role":`...)
	b = appendText(b, string(m.Role))
	b = append(b, `,"parts":`...)
	if m.Parts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range m.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = appendText(b, string(p.Type))
			if p.Text != "" {
				b = append(b, `,"text":`...)
				b = appendText(b, p.Text)
			}
			if c := p.ToolCall; c != nil {
				b = append(b, `,"tool_call":{"id":`...)
				b = appendText(b, c.ID)
				b = append(b, `,"name":`...)
				b = appendText(b, c.Name)
				if c.Input != nil {
					b = append(b, `,"input":`...)
					b = appendText(b, string(c.Input))
				}
				b = append(b, '}')
			}
			if r := p.ToolResult; r != nil {
				b = append(b, `,"tool_result":{"call_id":`...)
				b = appendText(b, r.CallID)
				b = append(b, `,"content":`...)
				b = appendText(b, r.Content)
				if r.IsError {
					b = append(b, `,"is_error":true`...)
				}
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendText appends s as a JSON string, or as {"base64": ...} when s is not
// valid UTF-8 (a JSON string could not carry it unchanged).
func appendText(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		b = append(b, `{"base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s))
		return append(b, `"}`...)
	}
	return jsontext.AppendString(b, s)
}

// text is a string in the stored form: a JSON string or {"base64": ...}.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
		return nil
	}
	var o struct {
		Base64 *string `json:"base64"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	if o.Base64 == nil {
		return errors.New("text: want a string or {\"base64\": ...}")
	}
	raw, err := base64.StdEncoding.DecodeString(*o.Base64)
	if err != nil {
		return err
	}
	*t = text(raw)
	return nil
}

func (t text) MarshalJSON() ([]byte, error) { return appendText(nil, string(t)), nil }

type storedMessage struct {
	Role  text         `json:"role"`
	Parts []storedPart `json:"parts"`
}

type storedPart struct {
	Type       text          `json:"type"`
	Text       text          `json:"text"`
	ToolCall   *storedCall   `json:"tool_call"`
	ToolResult *storedResult `json:"tool_result"`
}

type storedCall struct {
	ID    text  `json:"id"`
	Name  text  `json:"name"`
	Input *text `json:"input"`
}

type storedResult struct {
	CallID  text `json:"call_id"`
	Content text `json:"content"`
	IsError bool `json:"is_error"`
}

// decodeMessage reads a message's stored form.
func decodeMessage(b []byte) (message.Message, error) {
	var sm storedMessage
	if err := json.Unmarshal(b, &sm); err != nil {
		return message.Message{}, err
	}
	m := message.Message{Role: message.Role(sm.Role)}
	if sm.Parts != nil {
		m.Parts = make([]message.Part, len(sm.Parts))
	}
	for i, sp := range sm.Parts {
		p := message.Part{Type: message.PartType(sp.Type), Text: string(sp.Text)}
		if c := sp.ToolCall; c != nil {
			p.ToolCall = &message.ToolCall{ID: string(c.ID), Name: string(c.Name)}
			if c.Input != nil {
				p.ToolCall.Input = json.RawMessage(*c.Input)
			}
		}
		if r := sp.ToolResult; r != nil {
			p.ToolResult = &message.ToolResult{CallID: string(r.CallID), Content: string(r.Content), IsError: r.IsError}
		}
		m.Parts[i] = p
	}
	return m, nil
}
