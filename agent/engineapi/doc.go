// Package engineapi is the vocabulary of the session engine's boundary:
// the values and errors that cross between the engine (agent/runner and
// the turn loop under it) and its front ends — the pager, the HTTP API's
// Go client, telemetry. Events (Event, SessionEvent), a session's state
// (State, ModeResult), pending asks and their replies (PendingAsk, Reply,
// Answer), the advisor's verdict an ask carries (Advice), the MCP server
// values a front end shows or hands over (MCPStatus, MCPServer), the HTTP
// API's JSON bodies of those values (StateBody, ModeBody, MCPStatusBody),
// what a built-in tool call touches (CallTarget) and the engine's errors a
// front end branches on (ErrLagged, ErrNoAsk, *AnsweredError, …).
//
// It is named for what it holds — the engine's API as values — and holds
// nothing else: no behaviour of the engine, no I/O. It imports only the
// standard library, agent/message and agent/permission, so that a front end
// links none of the sandbox, the shell guard, the gate or the tools
// (deps_test.go at the module root holds it to that). The engine's packages
// keep their old names for these as aliases (runner.State,
// agent.Event, mcp.Status, jev.Advice, …): both spellings are the same type.
//
// See docs/server.md for the events and bodies as JSON.
package engineapi
