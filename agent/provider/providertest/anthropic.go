package providertest

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oceancode/oceancode/agent/message"
)

// The Anthropic Messages wire format, as much of it as the runtime uses.

type anthRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type anthBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// textOf reads a string, or a list of text blocks, as one string.
func textOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var blocks []anthBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", fmt.Errorf("content is neither a string nor a list of blocks")
	}
	for _, b := range blocks {
		if b.Type == "text" {
			s += b.Text
		}
	}
	return s, nil
}

func decodeAnthropic(body []byte, rec *Request) error {
	var req anthRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("anthropic request body: %w", err)
	}
	if req.Model == "" {
		return errors.New("anthropic request: model is required")
	}
	if req.MaxTokens <= 0 {
		return errors.New("anthropic request: max_tokens is required")
	}
	rec.Model, rec.MaxTokens, rec.Stream = req.Model, req.MaxTokens, req.Stream
	sys, err := textOf(req.System)
	if err != nil {
		return fmt.Errorf("anthropic request: system: %w", err)
	}
	rec.System = sys
	for _, t := range req.Tools {
		if t.Name == "" || len(t.InputSchema) == 0 {
			return errors.New("anthropic request: a tool needs a name and an input_schema")
		}
		rec.Tools = append(rec.Tools, t.Name)
	}
	for i, m := range req.Messages {
		msg := message.Message{Role: message.Role(m.Role)}
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("anthropic request: message %d: role %q", i, m.Role)
		}
		var s string
		if err := json.Unmarshal(m.Content, &s); err == nil {
			msg.Parts = append(msg.Parts, message.Part{Type: message.Text, Text: s})
			rec.Messages = append(rec.Messages, msg)
			continue
		}
		var blocks []anthBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return fmt.Errorf("anthropic request: message %d: content: %w", i, err)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == "" {
					return fmt.Errorf("anthropic request: message %d: text content blocks must be non-empty", i)
				}
				msg.Parts = append(msg.Parts, message.Part{Type: message.Text, Text: b.Text})
			case "tool_use":
				if m.Role != "assistant" || b.ID == "" || b.Name == "" {
					return fmt.Errorf("anthropic request: message %d: bad tool_use block", i)
				}
				msg.Parts = append(msg.Parts, message.Part{Type: message.ToolUse,
					ToolCall: &message.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input}})
			case "tool_result":
				if m.Role != "user" || b.ToolUseID == "" {
					return fmt.Errorf("anthropic request: message %d: bad tool_result block", i)
				}
				content, err := textOf(b.Content)
				if err != nil {
					return fmt.Errorf("anthropic request: message %d: tool_result: %w", i, err)
				}
				msg.Parts = append(msg.Parts, message.Part{Type: message.ToolOutput,
					ToolResult: &message.ToolResult{CallID: b.ToolUseID, Content: content, IsError: b.IsError}})
			default:
				return fmt.Errorf("anthropic request: message %d: block type %q", i, b.Type)
			}
		}
		rec.Messages = append(rec.Messages, msg)
	}
	return nil
}

func (p *player) toolID(i int, c ToolCall, prefix string) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("%s%02d_%d", prefix, p.turnIdx, i)
}

func (p *player) anthropic() {
	u := p.usage()
	id := fmt.Sprintf("msg_providertest_%d", p.reqIdx)
	stop := p.stopReason()
	usage := map[string]any{
		"input_tokens":                u.InputTokens,
		"output_tokens":               u.OutputTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"cache_creation_input_tokens": u.CacheWriteTokens,
	}
	if !p.rec.Stream {
		var content []map[string]any
		if p.turn.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": p.turn.Text})
		}
		for i, c := range p.turn.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": p.toolID(i, c, "toolu_"),
				"name": c.Name, "input": json.RawMessage(p.input(c))})
		}
		if content == nil {
			content = []map[string]any{}
		}
		body, _ := json.Marshal(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": p.rec.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		p.whole(body)
		return
	}

	add := func(event string, data any) {
		b, _ := json.Marshal(data)
		p.events = append(p.events, []byte("event: "+event+"\ndata: "+string(b)+"\n\n"))
	}
	startUsage := map[string]any{
		"input_tokens":                u.InputTokens,
		"output_tokens":               1,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"cache_creation_input_tokens": u.CacheWriteTokens,
	}
	add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": p.rec.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	// The stall (Delay) comes after message_start and the first text delta.
	stallAt := 1
	idx := 0
	if p.turn.Text != "" {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for j, w := range words(p.turn.Text) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "text_delta", "text": w}})
			if j == 0 {
				stallAt = len(p.events)
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	p.events = append(p.events, []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n"))
	for i, c := range p.turn.ToolCalls {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "tool_use", "id": p.toolID(i, c, "toolu_"), "name": c.Name, "input": map[string]any{}}})
		for _, f := range fragments(p.input(c)) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": f}})
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	add("message_stop", map[string]any{"type": "message_stop"})
	p.stream(stallAt)
}
