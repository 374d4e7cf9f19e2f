package export

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// unknownTools is the exporter's receiving middleware for tools/call of a
// tool it does not serve (a name the model made up, one the filter hides,
// one removed since the client listed). go-sdk would refuse the call with
// a JSON-RPC error (-32602 "unknown tool") and the call would leave no
// record; answered here, it gets what every integration gives: the
// not_found payload as an isError result, and one ledger record
// ([adapter.Executor.Unknown]).
func (s *Server) unknownTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || cr.Params == nil || s.serves(cr.Params.Name) {
			return next(ctx, method, req)
		}
		return s.unknown(ctx, cr), nil
	}
}

// serves reports whether the go-sdk server has the named tool.
func (s *Server) serves(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served[name]
}

// unknown records a call to a tool this exporter does not serve and
// answers it with the not_found payload.
func (s *Server) unknown(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	ctx = callContext(ctx, req)
	ctx = s.sessionScope(ctx, req.Session)
	nf := s.exec.Unknown(ctx, &adapter.Request{Tool: req.Params.Name, Args: req.Params.Arguments, Integration: Integration, Native: withoutCredentials(req)})
	return errorResult(nf)
}
