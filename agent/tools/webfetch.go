package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// WebFetchTool fetches a URL and returns its text.
//
// http and https only, through Env.HTTPClient; at most 5 MiB of the body is
// read. HTML is turned into readable text (scripts, styles and tags
// dropped, entities decoded); other text types are returned as they are;
// binary types are described, not shown. Its permission key is webfetch
// with the URL as the pattern (the default rules ask).
type WebFetchTool struct{}

// MaxFetchSize caps the body webfetch reads.
const MaxFetchSize = 5 << 20

type fetchInput struct {
	URL string `json:"url"`
}

var webfetchDef = provider.ToolDef{
	Name:        "webfetch",
	Description: "Fetch an http(s) URL; HTML is returned as plain text.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`),
}

// Def implements Tool.
func (WebFetchTool) Def() provider.ToolDef { return webfetchDef }

// Kind implements Tool: its input is a URL.
func (WebFetchTool) Kind() gate.Kind { return gate.KindURL }

func parseFetch(input json.RawMessage) (fetchInput, *url.URL, error) {
	var in fetchInput
	if err := decode("webfetch", input, &in, "url"); err != nil {
		return in, nil, err
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil {
		return in, nil, fmt.Errorf("webfetch: bad url: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return in, nil, fmt.Errorf("webfetch: only http and https URLs are fetched, not %q", u.Scheme)
	}
	if u.Host == "" {
		return in, nil, fmt.Errorf("webfetch: the url names no host")
	}
	if u.User != nil {
		return in, nil, fmt.Errorf("webfetch: URLs with credentials are not fetched")
	}
	in.URL = u.String()
	return in, u, nil
}

// Target implements Tool: the URL.
func (WebFetchTool) Target(input json.RawMessage) (Target, error) {
	in, _, err := parseFetch(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "webfetch", Input: in.URL}, nil
}

// Run implements Tool.
func (WebFetchTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	in, _, err := parseFetch(input)
	if err != nil {
		return errorResult(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, in.URL, nil)
	if err != nil {
		return errResult("webfetch: %v", err)
	}
	req.Header.Set("User-Agent", "oceancode")
	req.Header.Set("Accept", "text/html, text/plain, text/markdown, application/json;q=0.9, */*;q=0.5")
	resp, err := env.httpClient().Do(req)
	if err != nil {
		return errResult("webfetch: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchSize+1))
	if err != nil {
		return errResult("webfetch: read %s: %v", in.URL, err)
	}
	cut := len(body) > MaxFetchSize
	if cut {
		body = body[:MaxFetchSize]
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt == "" {
		mt = http.DetectContentType(body)
		mt, _, _ = mime.ParseMediaType(mt)
	}
	meta := map[string]any{"status": resp.StatusCode, "content_type": mt, "bytes": len(body), "url": resp.Request.URL.String()}
	var text string
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		text = htmlText(string(body))
	case textual(mt):
		text = string(body)
	default:
		return Result{Content: fmt.Sprintf("%s: %s content (%d bytes); not shown", in.URL, mt, len(body)), Meta: meta}
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if cut {
		text += fmt.Sprintf("\n[body cut at %d MiB]", MaxFetchSize>>20)
		meta["truncated"] = true
	}
	text, omittedN := truncate(text, env.outputLimit())
	if omittedN > 0 {
		meta["truncated_bytes"] = omittedN
	}
	if resp.StatusCode >= 400 {
		return Result{Content: fmt.Sprintf("webfetch: %s: HTTP %s\n%s", in.URL, resp.Status, clip(text, 2000)), IsError: true, Meta: meta}
	}
	if final := resp.Request.URL.String(); final != in.URL {
		text = "(redirected to " + final + ")\n" + text
	}
	return Result{Content: text, Meta: meta}
}

func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ld+json", "application/x-yaml", "application/yaml", "application/toml", "application/x-sh":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// dropped elements: their content is never text.
var dropped = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"iframe": true, "object": true, "canvas": true}

// blocks end a line.
var blocks = map[string]bool{"p": true, "div": true, "br": true, "hr": true, "tr": true, "table": true,
	"section": true, "article": true, "header": true, "footer": true, "nav": true, "main": true, "aside": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true, "ol": true,
	"pre": true, "blockquote": true, "title": true, "dl": true, "dt": true, "dd": true, "figure": true, "form": true}

// htmlText turns HTML into readable text in one linear pass: comments,
// scripts, styles and other non-text elements are dropped with their
// content, tags are removed (blocks become line breaks, list items "- ",
// headings "#"), entities decoded and whitespace collapsed. It never
// backtracks, so hostile markup costs linear time.
func htmlText(s string) string {
	var sb strings.Builder
	i := 0
	pre := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			writeText(&sb, s[i:], pre > 0)
			break
		}
		writeText(&sb, s[i:i+lt], pre > 0)
		i += lt
		if strings.HasPrefix(s[i:], "<!--") {
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		gt := tagEnd(s, i+1)
		if gt < 0 {
			break
		}
		tag := s[i+1 : gt]
		i = gt + 1
		closing := strings.HasPrefix(tag, "/")
		name := strings.ToLower(strings.TrimLeft(tag, "/!?"))
		if k := strings.IndexAny(name, " \t\r\n/"); k >= 0 {
			name = name[:k]
		}
		if !closing && dropped[name] {
			// skip to the matching close tag
			end := indexFold(s[i:], "</"+name)
			if end < 0 {
				break
			}
			i += end
			if gt := tagEnd(s, i+1); gt >= 0 {
				i = gt + 1
			} else {
				break
			}
			continue
		}
		switch {
		case name == "pre":
			if closing {
				pre = max(0, pre-1)
			} else {
				pre++
			}
			sb.WriteString("\n")
		case name == "li":
			if !closing {
				sb.WriteString("\n- ")
			}
		case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
			sb.WriteString("\n")
			if !closing {
				sb.WriteString(strings.Repeat("#", int(name[1]-'0')) + " ")
			}
		case name == "td" || name == "th":
			sb.WriteString(" ")
		case blocks[name]:
			sb.WriteString("\n")
		}
	}
	return tidy(sb.String())
}

// tagEnd finds the '>' closing a tag that starts at s[from], skipping
// quoted attribute values.
func tagEnd(s string, from int) int {
	var quote byte
	for j := from; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j
		}
	}
	return -1
}

func indexFold(s, sub string) int {
	n := len(sub)
	for j := 0; j+n <= len(s); j++ {
		if strings.EqualFold(s[j:j+n], sub) {
			return j
		}
	}
	return -1
}

func writeText(sb *strings.Builder, t string, pre bool) {
	if t == "" {
		return
	}
	t = html.UnescapeString(t)
	if pre {
		sb.WriteString(t)
		return
	}
	if c := t[0]; c == ' ' || c == '\n' || c == '\t' || c == '\r' {
		sb.WriteByte(' ')
	}
	sb.WriteString(strings.Join(strings.Fields(t), " "))
	if last := t[len(t)-1]; last == ' ' || last == '\n' || last == '\t' {
		sb.WriteByte(' ')
	}
}

// tidy trims each line and keeps at most one blank line in a row.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
			l = ""
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
