// Package message is the conversation vocabulary every part of the runtime
// shares: messages made of parts (text, tool calls, tool results), and token
// usage. It depends on nothing but the standard library, so providers, tools,
// the session store and the turn loop can all speak it.
package message

import "encoding/json"

// Role is who a message is from.
type Role string

// Roles. Tool results travel in a user message, as both the Anthropic and
// the OpenAI wire formats can express.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// PartType says what a Part holds.
type PartType string

// Part types.
const (
	Text       PartType = "text"
	ToolUse    PartType = "tool_call"
	ToolOutput PartType = "tool_result"
)

// Message is one turn of the conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one piece of a message; exactly one of its fields matches Type.
type Part struct {
	Type       PartType    `json:"type"`
	Text       string      `json:"text,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

// ToolCall is the model asking to run a tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult is a tool's answer to one call.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// CostUSD is what the tokens cost in US dollars at the model's price
	// (agent/modelinfo); 0 when the price is not known.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Add returns u plus o.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.InputTokens + o.InputTokens, u.OutputTokens + o.OutputTokens,
		u.CacheReadTokens + o.CacheReadTokens, u.CacheWriteTokens + o.CacheWriteTokens, u.CostUSD + o.CostUSD}
}

// Prompt is the tokens of the prompt: input plus cache reads and writes.
func (u Usage) Prompt() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// TextOf concatenates a message's text parts.
func (m Message) TextOf() string {
	s := ""
	for _, p := range m.Parts {
		if p.Type == Text {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns a message's tool calls in order.
func (m Message) ToolCalls() []ToolCall {
	var out []ToolCall
	for _, p := range m.Parts {
		if p.Type == ToolUse && p.ToolCall != nil {
			out = append(out, *p.ToolCall)
		}
	}
	return out
}

// UserText is a user message holding one text part.
func UserText(s string) Message { return Message{Role: User, Parts: []Part{{Type: Text, Text: s}}} }
