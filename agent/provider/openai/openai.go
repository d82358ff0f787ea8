// Package openai is the provider for the OpenAI Chat Completions API, over
// the official Go SDK (github.com/openai/openai-go). Chat Completions is the
// wire format every OpenAI-compatible server speaks (vLLM, llama.cpp,
// Ollama, LM Studio, OpenRouter, DeepSeek, …), so pointing cfg.BaseURL at one
// is all it takes. Assistant tool calls become tool_calls, a user message's
// tool results become "tool" role messages, streamed tool-call argument
// deltas are assembled per index, usage is requested in the stream
// (stream_options.include_usage), and finish reasons are mapped onto the
// runtime's stop reasons. Retries (429, 5xx) are this package's own single
// layer; the SDK's are off. The API key comes from provider.Config only,
// never from OPENAI_* variables, and never appears in an error.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider"
)

// Client calls Chat Completions. It is safe for concurrent use.
type Client struct {
	chat   sdk.ChatCompletionService
	retry  provider.Retrier
	stream bool
	key    string
	// vendor is true when talking to api.openai.com itself, which wants
	// max_completion_tokens; compatible servers get the classic max_tokens.
	vendor bool
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg: cfg.BaseURL ("" = https://api.openai.com/v1;
// for a compatible server the URL that ends in /v1), cfg.APIKey, cfg.Headers,
// cfg.Stream and the retry settings.
func New(cfg provider.Config) (*Client, error) {
	if cfg.Type != "" && cfg.Type != "openai" {
		return nil, fmt.Errorf("openai: new client: %w %q", provider.ErrUnknownType, cfg.Type)
	}
	// The chat service is built directly rather than through NewClient,
	// which would read OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID, … from
	// the environment.
	opts := []option.RequestOption{
		option.WithHTTPClient(provider.HTTPClient()),
		option.WithEnvironmentProduction(),
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
	return &Client{
		chat:   sdk.NewChatCompletionService(opts...),
		retry:  provider.RetrierFor(cfg),
		stream: cfg.Stream,
		key:    cfg.APIKey,
		vendor: isVendor(cfg.BaseURL),
	}, nil
}

// isVendor reports whether base is OpenAI's own API (which wants
// max_completion_tokens) rather than a compatible server (max_tokens).
func isVendor(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// Stream makes one model call. With cfg.Stream it uses the SSE API and sends
// each text delta to on as it arrives and each tool call once the model has
// finished (when its arguments are complete); otherwise it makes one call and
// sends the same events from the finished message. A cancelled ctx ends the
// call and returns ctx.Err().
func (c *Client) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (provider.Response, error) {
	params, err := c.buildParams(req)
	if err != nil {
		return provider.Response{}, err
	}
	once := c.callOnce
	if c.stream {
		once = c.streamOnce
	}
	return provider.Call(ctx, c.retry, c.key, on, params, once)
}

func (c *Client) callOnce(ctx context.Context, params sdk.ChatCompletionNewParams, on func(provider.Event)) (provider.Response, bool, error) {
	cc, err := c.chat.New(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return provider.Response{}, false, ctx.Err()
		}
		retry, err := c.classify(err)
		return provider.Response{}, retry, fmt.Errorf("openai: create chat completion: %w", err)
	}
	if len(cc.Choices) == 0 {
		return provider.Response{}, false, errors.New("openai: create chat completion: answer has no choices")
	}
	ch := cc.Choices[0]
	resp := provider.Response{Message: message.Message{Role: message.Assistant}, Usage: usageOf(cc.Usage)}
	if ch.Message.Content != "" {
		resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.Text, Text: ch.Message.Content})
		provider.Emit(on, provider.Event{Type: provider.TextDelta, Text: ch.Message.Content})
	}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		call, err := toolCall(i, tc.ID, tc.Function.Name, tc.Function.Arguments)
		if err != nil {
			return provider.Response{}, false, fmt.Errorf("openai: create chat completion: %w", err)
		}
		resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.ToolUse, ToolCall: call})
		provider.Emit(on, provider.Event{Type: provider.ToolCall, ToolCall: call})
	}
	resp.StopReason = stopReason(ch.FinishReason, len(resp.Message.ToolCalls()) > 0)
	return resp, false, nil
}

func (c *Client) streamOnce(ctx context.Context, params sdk.ChatCompletionNewParams, on func(provider.Event)) (provider.Response, bool, error) {
	stream := c.chat.NewStreaming(ctx, params)
	defer stream.Close()
	resp, emitted, err := assemble(stream, on)
	return provider.StreamAttempt(ctx, resp, emitted, err, c.classify, "openai: stream chat completion")
}

// errTruncated marks a stream that ended before a finish_reason.
var errTruncated = errors.New("stream ended before finish_reason")

type pendingCall struct {
	index int64
	id    string
	name  string
	args  strings.Builder
}

// assemble reads a chunk stream to the end. emitted reports whether any
// event reached on (after which a failure must not be retried).
func assemble(stream *ssestream.Stream[sdk.ChatCompletionChunk], on func(provider.Event)) (provider.Response, bool, error) {
	var (
		text    strings.Builder
		calls   []*pendingCall
		usage   message.Usage
		finish  string
		emitted bool
	)
	for stream.Next() {
		chunk := stream.Current()
		if chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0 {
			usage = usageOf(chunk.Usage)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			if d.Content != "" {
				text.WriteString(d.Content)
				emitted = true
				provider.Emit(on, provider.Event{Type: provider.TextDelta, Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				var p *pendingCall
				for _, q := range calls {
					if q.index == tc.Index {
						p = q
						break
					}
				}
				if p == nil {
					if len(calls) >= 1024 {
						return provider.Response{}, emitted, errors.New("too many tool calls in one answer")
					}
					p = &pendingCall{index: tc.Index}
					calls = append(calls, p)
				}
				if tc.ID != "" {
					p.id = tc.ID
				}
				if tc.Function.Name != "" {
					p.name += tc.Function.Name
				}
				p.args.WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		return provider.Response{}, emitted, err
	}
	if finish == "" {
		return provider.Response{}, emitted, errTruncated
	}
	resp := provider.Response{Message: message.Message{Role: message.Assistant}, Usage: usage}
	if text.Len() > 0 {
		resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.Text, Text: text.String()})
	}
	slices.SortStableFunc(calls, func(a, b *pendingCall) int { return int(a.index - b.index) })
	for i, p := range calls {
		call, err := toolCall(i, p.id, p.name, p.args.String())
		if err != nil {
			return provider.Response{}, emitted, err
		}
		resp.Message.Parts = append(resp.Message.Parts, message.Part{Type: message.ToolUse, ToolCall: call})
		emitted = true
		provider.Emit(on, provider.Event{Type: provider.ToolCall, ToolCall: call})
	}
	resp.StopReason = stopReason(finish, len(calls) > 0)
	return resp, emitted, nil
}

// toolCall builds a complete call; servers that send no id (some local
// ones) get a positional one so the result can still be matched.
func toolCall(i int, id, name, args string) (*message.ToolCall, error) {
	if name == "" {
		return nil, fmt.Errorf("tool call %d has no function name", i)
	}
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return nil, fmt.Errorf("tool call %s: arguments are not valid JSON", name)
	}
	if id == "" {
		id = "call_" + strconv.Itoa(i)
	}
	return &message.ToolCall{ID: id, Name: name, Input: json.RawMessage(args)}, nil
}

// stopReason maps finish_reason onto the runtime's (Anthropic-style) names.
// Some servers (Ollama) finish a tool-calling answer with "stop".
func stopReason(finish string, hasCalls bool) string {
	switch finish {
	case "stop":
		if hasCalls {
			return "tool_use"
		}
		return "end_turn"
	case "tool_calls", "function_call":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	}
	return finish
}

// usageOf converts usage. OpenAI's prompt_tokens includes cached tokens; ours
// (like Anthropic's input_tokens) does not, so that input + cache read +
// cache write is the whole prompt for every provider.
func usageOf(u sdk.CompletionUsage) message.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	in := u.PromptTokens - cached - written
	if in < 0 {
		in = u.PromptTokens
	}
	return message.Usage{InputTokens: in, OutputTokens: u.CompletionTokens,
		CacheReadTokens: cached, CacheWriteTokens: written}
}

// classify turns an SDK error into ours and says whether it is worth
// retrying (an HTTP 429 or 5xx answer).
func (c *Client) classify(err error) (bool, error) {
	var se *sdk.Error
	if errors.As(err, &se) {
		var h http.Header
		if se.Response != nil {
			h = se.Response.Header
		}
		ae := provider.NewAPIError(se.StatusCode, se.Message, h, c.key)
		ae.Code = se.Code
		return ae.Temporary(), ae
	}
	var stre *ssestream.StreamError
	if errors.As(err, &stre) {
		// An error object inside a 200 stream: its text is the server's.
		return false, errors.New(provider.RedactString(stre.Message, c.key))
	}
	return false, err
}

// buildParams maps a provider.Request onto Chat Completions.
func (c *Client) buildParams(req provider.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if req.MaxTokens > 0 {
		if c.vendor {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if c.stream {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}
	for _, t := range req.Tools {
		def, err := functionDef(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionToolUnionParam{OfFunction: &sdk.ChatCompletionFunctionToolParam{Function: def}})
	}
	p.Messages = make([]sdk.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case message.User:
			// Tool results first: they must directly follow the assistant
			// message whose calls they answer.
			var text []string
			for _, part := range m.Parts {
				switch part.Type {
				case message.ToolOutput:
					r := part.ToolResult
					if r == nil {
						return p, fmt.Errorf("openai: message %d: tool_result part without a result", i)
					}
					content := r.Content
					if r.IsError && !strings.HasPrefix(content, "error") {
						content = "error: " + content
					}
					p.Messages = append(p.Messages, sdk.ToolMessage(content, r.CallID))
				case message.Text:
					if part.Text != "" {
						text = append(text, part.Text)
					}
				default:
					return p, fmt.Errorf("openai: message %d: %q part in a user message", i, part.Type)
				}
			}
			if len(text) > 0 {
				p.Messages = append(p.Messages, sdk.UserMessage(strings.Join(text, "\n\n")))
			}
		case message.Assistant:
			am := &sdk.ChatCompletionAssistantMessageParam{}
			var text strings.Builder
			for _, part := range m.Parts {
				switch part.Type {
				case message.Text:
					text.WriteString(part.Text)
				case message.ToolUse:
					tc := part.ToolCall
					if tc == nil {
						return p, fmt.Errorf("openai: message %d: tool_call part without a call", i)
					}
					args := string(tc.Input)
					if args == "" {
						args = "{}"
					}
					am.ToolCalls = append(am.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
						OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
							ID:       tc.ID,
							Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
						}})
				default:
					return p, fmt.Errorf("openai: message %d: %q part in an assistant message", i, part.Type)
				}
			}
			if text.Len() > 0 {
				am.Content.OfString = param.NewOpt(text.String())
			}
			if text.Len() == 0 && len(am.ToolCalls) == 0 {
				continue
			}
			p.Messages = append(p.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: am})
		default:
			return p, fmt.Errorf("openai: message %d: unknown role %q", i, m.Role)
		}
	}
	return p, nil
}

// functionDef sends a tool's JSON Schema as given (byte for byte), rather
// than through a map that would reorder it.
func functionDef(t provider.ToolDef) (shared.FunctionDefinitionParam, error) {
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	raw, err := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}{t.Name, t.Description, schema})
	if err != nil {
		return shared.FunctionDefinitionParam{}, fmt.Errorf("openai: tool %s: input schema: %w", t.Name, err)
	}
	return param.Override[shared.FunctionDefinitionParam](json.RawMessage(raw)), nil
}
