package pager

import (
	"context"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// MCPTruster is an Engine that can answer a trust prompt: a project
// .mcp.json server the MCP list shows in state "untrusted" (its Reason says
// what it would run) is trusted — recorded in the user's trust store, as
// `oceancode mcp trust NAME` does — and started. Remote implements it (an
// addition to the Engine contract that leaves its method set as it is);
// no pager command calls it yet, so the pager itself offers no trust
// prompt: `/mcp` lists such a server as untrusted, with its reason.
type MCPTruster interface {
	TrustMCP(ctx context.Context, name string) (engineapi.MCPStatus, error)
}

// TrustMCP implements MCPTruster (POST …/mcp/{name}/trust).
func (r *remote) TrustMCP(ctx context.Context, name string) (engineapi.MCPStatus, error) {
	return r.c.TrustMCP(ctx, r.id, name)
}

var _ MCPTruster = (*remote)(nil)
