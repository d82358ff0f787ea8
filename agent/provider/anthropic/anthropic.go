// Package anthropic is the provider for the Anthropic Messages API, over the
// official Go SDK (github.com/anthropics/anthropic-sdk-go). It maps the
// runtime's messages, tool definitions and tool results onto the wire format,
// streams text deltas and completed tool calls as they arrive (or makes one
// non-streaming call), records token usage including prompt-cache reads and
// writes, and retries 429 and 5xx answers with one layer of backoff of its
// own (the SDK's retries are off). The API key is taken from provider.Config
// only — never from the environment or the SDK's profile files — and never
// appears in an error.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// DefaultMaxTokens is sent when a Request leaves MaxTokens zero (the Messages
// API requires the field).
const DefaultMaxTokens = 8192

// Client calls the Messages API. It is safe for concurrent use.
type Client struct {
	msgs   sdk.MessageService
	retry  provider.Retrier
	stream bool
	key    string
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg: cfg.BaseURL ("" = https://api.anthropic.com),
// cfg.APIKey, cfg.Headers, cfg.Stream and the retry settings.
func New(cfg provider.Config) (*Client, error) {
	if cfg.Type != "" && cfg.Type != "anthropic" {
		return nil, fmt.Errorf("anthropic: new client: %w %q", provider.ErrUnknownType, cfg.Type)
	}
	opts := []option.RequestOption{
		// Nothing from the environment: no ANTHROPIC_* variables, no profile files.
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(provider.HTTPClient()),
		option.WithMaxRetries(0), // our Retrier is the one layer of retries
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	c := sdk.NewClient(opts...)
	return &Client{msgs: c.Messages, retry: provider.RetrierFor(cfg), stream: cfg.Stream, key: cfg.APIKey}, nil
}

// Stream makes one model call. With cfg.Stream it uses the SSE API and sends
// each text delta to on as it arrives and each tool call once its input JSON
// is complete; otherwise it makes one call and sends the same events from
// the finished message. A cancelled ctx ends the call and returns ctx.Err().
func (c *Client) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (provider.Response, error) {
	params, err := buildParams(req)
	if err != nil {
		return provider.Response{}, err
	}
	once := c.callOnce
	if c.stream {
		once = c.streamOnce
	}
	return provider.Call(ctx, c.retry, c.key, on, params, once)
}

func (c *Client) callOnce(ctx context.Context, params sdk.MessageNewParams, on func(provider.Event)) (provider.Response, bool, error) {
	m, err := c.msgs.New(ctx, params)
	if err != nil {
		retry, err := c.classify(err)
		return provider.Response{}, retry, fmt.Errorf("anthropic: create message: %w", err)
	}
	resp := provider.Response{
		Message:    message.Message{Role: message.Assistant},
		StopReason: string(m.StopReason),
		Usage: message.Usage{
			InputTokens:      m.Usage.InputTokens,
			OutputTokens:     m.Usage.OutputTokens,
			CacheReadTokens:  m.Usage.CacheReadInputTokens,
			CacheWriteTokens: m.Usage.CacheCreationInputTokens,
		},
	}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			if b.Text == "" {
				continue
			}
			resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.Text, Text: b.Text})
			provider.Emit(on, provider.Event{Type: provider.TextDelta, Text: b.Text})
		case "tool_use":
			in := json.RawMessage(b.Input)
			if len(in) == 0 || string(in) == "null" {
				in = json.RawMessage("{}")
			} else {
				in = append(json.RawMessage(nil), in...)
			}
			tc := &message.ToolCall{ID: b.ID, Name: b.Name, Input: in}
			resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.ToolUse, ToolCall: tc})
			provider.Emit(on, provider.Event{Type: provider.ToolCall, ToolCall: tc})
		}
	}
	return resp, false, nil
}

// block is one content block being assembled from a stream.
type block struct {
	kind  string // "text", "tool_use", or another type we skip
	text  strings.Builder
	id    string
	name  string
	input strings.Builder
	done  bool
}

func (c *Client) streamOnce(ctx context.Context, params sdk.MessageNewParams, on func(provider.Event)) (provider.Response, bool, error) {
	stream := c.msgs.NewStreaming(ctx, params)
	defer stream.Close()
	resp, emitted, err := assemble(stream, on)
	return provider.StreamAttempt(ctx, resp, emitted, err, c.classify, "anthropic: stream message")
}

// errTruncated marks a stream that ended without message_stop.
var errTruncated = errors.New("stream ended before message_stop")

// assemble reads a message stream to the end. emitted reports whether any
// event reached on (after which a failure must not be retried).
func assemble(stream *ssestream.Stream[sdk.MessageStreamEventUnion], on func(provider.Event)) (provider.Response, bool, error) {
	var (
		blocks  []*block
		usage   message.Usage
		stop    string
		emitted bool
		stopped bool
	)
	get := func(i int64) *block {
		if i < 0 || i > 1<<16 {
			return nil
		}
		for int(i) >= len(blocks) {
			blocks = append(blocks, nil)
		}
		return blocks[i]
	}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = message.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
		case "content_block_start":
			get(ev.Index)
			if ev.Index < 0 || int(ev.Index) >= len(blocks) {
				return provider.Response{}, emitted, fmt.Errorf("content block index %d out of range", ev.Index)
			}
			b := &block{kind: ev.ContentBlock.Type, id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			blocks[ev.Index] = b
			if b.kind == "text" && ev.ContentBlock.Text != "" {
				b.text.WriteString(ev.ContentBlock.Text)
				emitted = true
				provider.Emit(on, provider.Event{Type: provider.TextDelta, Text: ev.ContentBlock.Text})
			}
		case "content_block_delta":
			b := get(ev.Index)
			if b == nil {
				return provider.Response{}, emitted, fmt.Errorf("delta for unknown content block %d", ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					b.text.WriteString(ev.Delta.Text)
					emitted = true
					provider.Emit(on, provider.Event{Type: provider.TextDelta, Text: ev.Delta.Text})
				}
			case "input_json_delta":
				b.input.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			b := get(ev.Index)
			if b == nil || b.done {
				continue
			}
			b.done = true
			if b.kind == "tool_use" {
				tc, err := b.toolCall()
				if err != nil {
					return provider.Response{}, emitted, err
				}
				emitted = true
				provider.Emit(on, provider.Event{Type: provider.ToolCall, ToolCall: tc})
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stop = string(ev.Delta.StopReason)
			}
			// message_delta usage is cumulative; zero means "not reported".
			u := ev.Usage
			if u.OutputTokens > 0 {
				usage.OutputTokens = u.OutputTokens
			}
			if u.InputTokens > 0 {
				usage.InputTokens = u.InputTokens
			}
			if u.CacheReadInputTokens > 0 {
				usage.CacheReadTokens = u.CacheReadInputTokens
			}
			if u.CacheCreationInputTokens > 0 {
				usage.CacheWriteTokens = u.CacheCreationInputTokens
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return provider.Response{}, emitted, err
	}
	if !stopped {
		return provider.Response{}, emitted, errTruncated
	}
	resp := provider.Response{Message: message.Message{Role: message.Assistant}, Usage: usage, StopReason: stop}
	for _, b := range blocks {
		if b == nil {
			continue
		}
		switch b.kind {
		case "text":
			if b.text.Len() > 0 {
				resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.Text, Text: b.text.String()})
			}
		case "tool_use":
			if !b.done {
				return provider.Response{}, emitted, fmt.Errorf("tool call %s: %w", b.name, errTruncated)
			}
			tc, _ := b.toolCall()
			resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.ToolUse, ToolCall: tc})
		}
	}
	return resp, emitted, nil
}

func (b *block) toolCall() (*message.ToolCall, error) {
	in := strings.TrimSpace(b.input.String())
	if in == "" {
		in = "{}"
	}
	if !json.Valid([]byte(in)) {
		return nil, fmt.Errorf("tool call %s: input is not valid JSON", b.name)
	}
	return &message.ToolCall{ID: b.id, Name: b.name, Input: json.RawMessage(in)}, nil
}

// classify turns an SDK error into ours and says whether it is worth
// retrying: an HTTP 429/5xx answer, or an overloaded/api error event.
func (c *Client) classify(err error) (bool, error) {
	var se *sdk.Error
	if !errors.As(err, &se) {
		return false, err
	}
	var h http.Header
	if se.Response != nil {
		h = se.Response.Header
	}
	status := se.StatusCode
	msg := se.Message
	if msg == "" {
		msg = se.RawJSON()
	}
	// An error event inside a 200 stream carries the stream's status; use
	// the error type to decide instead.
	if status < 400 {
		switch string(se.Type()) {
		case "overloaded_error":
			status = 529
		case "api_error":
			status = http.StatusInternalServerError
		case "rate_limit_error":
			status = http.StatusTooManyRequests
		default:
			status = http.StatusBadRequest
		}
	}
	ae := provider.NewAPIError(status, msg, h, c.key)
	return ae.Temporary(), ae
}

// buildParams maps a provider.Request onto the Messages API.
func buildParams(req provider.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: int64(req.MaxTokens),
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	if req.System != "" {
		// A cache breakpoint on the system prompt caches tools + system
		// (the API orders them tools, system, messages).
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tp := &sdk.ToolParam{
			Name:        t.Name,
			InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
		}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	p.Messages = make([]sdk.MessageParam, 0, len(req.Messages))
	var last []sdk.ContentBlockParamUnion
	for i, m := range req.Messages {
		blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Parts))
		for _, part := range m.Parts {
			switch part.Type {
			case message.Text:
				if part.Text != "" { // the API refuses empty text blocks
					blocks = append(blocks, sdk.NewTextBlock(part.Text))
				}
			case message.ToolUse:
				if part.ToolCall == nil {
					return p, fmt.Errorf("anthropic: message %d: tool_call part without a call", i)
				}
				in := part.ToolCall.Input
				if len(in) == 0 {
					in = json.RawMessage("{}")
				}
				blocks = append(blocks, sdk.NewToolUseBlock(part.ToolCall.ID, in, part.ToolCall.Name))
			case message.ToolOutput:
				r := part.ToolResult
				if r == nil {
					return p, fmt.Errorf("anthropic: message %d: tool_result part without a result", i)
				}
				tr := &sdk.ToolResultBlockParam{ToolUseID: r.CallID}
				if r.Content != "" {
					tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: r.Content}}}
				}
				if r.IsError {
					tr.IsError = param.NewOpt(true)
				}
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: tr})
			default:
				return p, fmt.Errorf("anthropic: message %d: unknown part type %q", i, part.Type)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		last = blocks
		switch m.Role {
		case message.User:
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		case message.Assistant:
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("anthropic: message %d: unknown role %q", i, m.Role)
		}
	}
	// A second cache breakpoint on the newest block lets the next call read
	// the whole conversation so far from the cache.
	setCacheControl(last)
	return p, nil
}

// setCacheControl marks the last of blocks (shared with the message that
// holds them) as a cache breakpoint.
func setCacheControl(blocks []sdk.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	b := &blocks[len(blocks)-1]
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	}
}
