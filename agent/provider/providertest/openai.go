package providertest

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oceancode/oceancode/agent/message"
)

// The OpenAI Chat Completions wire format, as much of it as the runtime uses.

type oaiRequest struct {
	Model               string       `json:"model"`
	MaxTokens           int          `json:"max_tokens"`
	MaxCompletionTokens int          `json:"max_completion_tokens"`
	Messages            []oaiMessage `json:"messages"`
	Tools               []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func decodeOpenAI(body []byte, rec *Request) error {
	var req oaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("openai request body: %w", err)
	}
	if req.Model == "" {
		return errors.New("openai request: model is required")
	}
	rec.Model, rec.Stream = req.Model, req.Stream
	rec.MaxTokens = max(req.MaxTokens, req.MaxCompletionTokens)
	for _, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return errors.New("openai request: a tool needs type function and a name")
		}
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	// Pending tool calls: every one must be answered by a tool message
	// before the next user or assistant message, as the real API insists.
	pending := map[string]bool{}
	for i, m := range req.Messages {
		text, err := textOf(m.Content)
		if err != nil {
			return fmt.Errorf("openai request: message %d: %w", i, err)
		}
		if m.Role != "tool" && len(pending) > 0 {
			return fmt.Errorf("openai request: message %d: tool calls without a tool message answering them", i)
		}
		switch m.Role {
		case "system", "developer":
			if rec.System != "" {
				rec.System += "\n"
			}
			rec.System += text
		case "user":
			rec.Messages = append(rec.Messages, message.UserText(text))
		case "assistant":
			msg := message.Message{Role: message.Assistant}
			if text != "" {
				msg.Parts = append(msg.Parts, message.Part{Type: message.Text, Text: text})
			}
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Function.Name == "" {
					return fmt.Errorf("openai request: message %d: tool call without id or name", i)
				}
				if !json.Valid([]byte(c.Function.Arguments)) {
					return fmt.Errorf("openai request: message %d: tool call %s: arguments are not JSON", i, c.ID)
				}
				pending[c.ID] = true
				msg.Parts = append(msg.Parts, message.Part{Type: message.ToolUse,
					ToolCall: &message.ToolCall{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(c.Function.Arguments)}})
			}
			rec.Messages = append(rec.Messages, msg)
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Errorf("openai request: message %d: tool message for unknown call %q", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			part := message.Part{Type: message.ToolOutput, ToolResult: &message.ToolResult{CallID: m.ToolCallID, Content: text}}
			// Consecutive tool messages are one user message in our vocabulary.
			if n := len(rec.Messages); n > 0 && rec.Messages[n-1].Role == message.User && isResults(rec.Messages[n-1]) {
				rec.Messages[n-1].Parts = append(rec.Messages[n-1].Parts, part)
			} else {
				rec.Messages = append(rec.Messages, message.Message{Role: message.User, Parts: []message.Part{part}})
			}
		default:
			return fmt.Errorf("openai request: message %d: role %q", i, m.Role)
		}
	}
	return nil
}

func isResults(m message.Message) bool {
	for _, p := range m.Parts {
		if p.Type != message.ToolOutput {
			return false
		}
	}
	return true
}

func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	}
	return stop
}

func (p *player) openai() {
	u := p.usage()
	id := fmt.Sprintf("chatcmpl-providertest-%d", p.reqIdx)
	const created = 1767225600
	usage := map[string]any{
		"prompt_tokens":     u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens,
		"completion_tokens": u.OutputTokens,
		"total_tokens":      u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{
			"cached_tokens":      u.CacheReadTokens,
			"cache_write_tokens": u.CacheWriteTokens,
		},
	}
	finish := finishReason(p.stopReason())
	if !p.rec.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if p.turn.Text != "" {
			msg["content"] = p.turn.Text
		}
		var calls []map[string]any
		for i, c := range p.turn.ToolCalls {
			calls = append(calls, map[string]any{"id": p.toolID(i, c, "call_"), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(p.input(c))}})
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		body, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": p.rec.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   usage,
		})
		p.whole(body)
		return
	}

	var body oaiRequest
	_ = json.Unmarshal(p.rec.Body, &body)
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": p.rec.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		})
		p.events = append(p.events, []byte("data: "+string(b)+"\n\n"))
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	stallAt := 1
	for j, w := range words(p.turn.Text) {
		chunk(map[string]any{"content": w}, nil)
		if j == 0 {
			stallAt = len(p.events)
		}
	}
	for i, c := range p.turn.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": p.toolID(i, c, "call_"), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		for _, f := range fragments(p.input(c)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": f}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if body.StreamOptions != nil && body.StreamOptions.IncludeUsage {
		b, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": p.rec.Model,
			"choices": []any{}, "usage": usage,
		})
		p.events = append(p.events, []byte("data: "+string(b)+"\n\n"))
	}
	p.events = append(p.events, []byte("data: [DONE]\n\n"))
	p.stream(stallAt)
}
