// Command mockmcp is the test MCP server (agent/mcp/mcptest) as a command
// of its own: a real go-sdk server on stdio with the echo, sleep, … tools.
// scripts/bench-compare.py starts it for the MCP round-trip figure, the
// same server for both builds.
package main

import "github.com/oceancode/oceancode/agent/mcp/mcptest"

func main() { mcptest.Main() }
