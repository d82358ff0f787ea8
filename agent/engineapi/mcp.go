package engineapi

import (
	"fmt"
	"strings"
	"time"

	"github.com/oceancode/oceancode/agent/permission"
)

// MCPServer is one MCP server's definition, as config, a project's .mcp.json or
// a runtime add declare it. The json names are the config's (mcp.servers.NAME)
// and .mcp.json's (mcpServers.NAME, which may add "type").
type MCPServer struct {
	Name string `json:"-"`
	// Type is .mcp.json's transport ("stdio", "http", "streamable-http";
	// "" infers it from Command or URL).
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Enabled *bool             `json:"enabled,omitempty"`
	// Origin is where the server was declared; it decides calls no mcp rule
	// decides, and whether the server needs trust.
	Origin permission.MCPOrigin `json:"-"`
	// Source names the file (or "runtime add", "client") that declared it.
	Source string `json:"-"`
}

// Check says what is wrong with a definition a client hands over at
// runtime (serve's "mcp_servers", POST /mcp): the name must be one the mcp
// rule pattern <server>/<tool> and the tool names mcp__NAME__TOOL can carry,
// and exactly one transport must be given.
func (s MCPServer) Check() error {
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, "/ \t\n"):
		return fmt.Errorf("mcp server %q: name the server without \"/\" or spaces (its tools are offered as mcp__NAME__TOOL)", s.Name)
	case (s.Command == "") == (s.URL == ""):
		return fmt.Errorf("mcp server %s: give either \"command\" (a stdio server) or \"url\" (a streamable-HTTP server)", s.Name)
	}
	return nil
}

// Disabled reports whether the definition turns the server off.
func (s MCPServer) Disabled() bool { return s.Enabled != nil && !*s.Enabled }

// Remote reports whether the server is reached over HTTP.
func (s MCPServer) Remote() bool { return s.URL != "" }

// Identity is what the allow-list matches besides the name: the command or
// the URL.
func (s MCPServer) Identity() string {
	if s.Remote() {
		return s.URL
	}
	return s.Command
}

// Validate checks the definition: a name without '/', exactly one of
// command and url, a known type.
func (s MCPServer) Validate() error {
	switch {
	case s.Name == "" || strings.Contains(s.Name, "/"):
		return fmt.Errorf("mcp server %q: the name must be non-empty and without '/'", s.Name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("mcp server %s: both command and url are set; a server is local (command) or remote (url)", s.Name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("mcp server %s: neither command nor url is set", s.Name)
	}
	switch s.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	default:
		return fmt.Errorf("mcp server %s: transport type %q is not supported (stdio or http)", s.Name, s.Type)
	}
	if s.Type == "stdio" && s.Command == "" || (s.Type == "http" || s.Type == "streamable-http" || s.Type == "streamableHttp") && s.URL == "" {
		return fmt.Errorf("mcp server %s: type %s does not match the definition", s.Name, s.Type)
	}
	return nil
}

// The states of an MCP server (MCPStatus.State).
const (
	MCPConnected = "connected"
	MCPRefused   = "refused"   // the requirements' allow-list refused it
	MCPDenied    = "denied"    // the permission rules deny all its tools
	MCPUntrusted = "untrusted" // a project server awaiting trust (or changed since)
	MCPFailed    = "failed"    // it did not start, or did not list its tools
	MCPDisabled  = "disabled"  // enabled: false
	MCPExited    = "exited"    // it was connected and went away (the next call reconnects)
	MCPPending   = "starting"
)

// MCPStatus is an MCP server's state as `mcp list`, events and inspect show it.
type MCPStatus struct {
	Name   string
	Origin string
	Source string
	State  string
	Reason string   // why not connected; skipped tools
	Tools  []string // the tools listed (server-side names)
	// Took is how long the last start took, admission to listing.
	Took time.Duration
}

// Event is the server's state as a session event (type mcp, Key the
// server's name).
func (s MCPStatus) Event() Event {
	text := fmt.Sprintf("MCP server %s (%s): %s", s.Name, s.Origin, s.State)
	switch {
	case s.State == MCPConnected:
		text += fmt.Sprintf(", %d tools (started in %v)", len(s.Tools), s.Took.Round(time.Millisecond))
		if s.Reason != "" {
			text += "; " + s.Reason
		}
	case s.Reason != "":
		text += ": " + s.Reason
	}
	return Event{Type: EventMCP, Key: s.Name, Text: text}
}
