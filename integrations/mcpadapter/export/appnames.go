package export

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// appNames is the exporter's receiving middleware that keeps the tools of
// an MCP App callable under the name the app knows. An app's HTML calls
// its server's tools by their names on that server; the host passes the
// call on as it is, so under mcpadapter.Upstream.Prefix or a rename the export would
// not know the name. A tools/call of a name the export does not serve is
// sent to the served tool whose remote name it is, if there is exactly one
// and it belongs to an app (its _meta.ui is an object whose visibility,
// if stated, names "app"). Anything else (no such tool, two servers
// claiming the name, a tool outside the export's filter or not an app's)
// stays unknown. The call is then governed and recorded as the served
// tool's, under its served name.
func (s *Server) appNames(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || cr.Params == nil || s.serves(cr.Params.Name) {
			return next(ctx, method, req)
		}
		name, ok := s.appTool(cr.Params.Name)
		if !ok {
			return next(ctx, method, req)
		}
		p := *cr.Params
		p.Name = name
		c := *cr
		c.Params = &p
		return next(ctx, method, &c)
	}
}

// appTool returns the served name of the one app tool whose remote name is
// remote.
func (s *Server) appTool(remote string) (string, bool) {
	found := ""
	for spec := range s.reg.List(s.filter) {
		if spec.Source.RemoteName != remote || !appCallable(spec) || !s.serves(spec.Name) {
			continue
		}
		if found != "" {
			return "", false // two servers claim the name: neither is guessed
		}
		found = spec.Name
	}
	return found, found != ""
}

// appCallable reports whether an MCP App may call the tool: its _meta.ui is
// an object whose visibility is absent (["model", "app"]) or names "app".
func appCallable(spec *adapter.Spec) bool {
	ui, ok := spec.Meta[adapter.MetaKeyUI].(map[string]any)
	if !ok {
		return false
	}
	v, ok := ui["visibility"]
	if !ok || v == nil {
		return true
	}
	switch l := v.(type) {
	case []any:
		for _, e := range l {
			if e == adapter.VisibilityApp {
				return true
			}
		}
	case []string:
		for _, e := range l {
			if e == adapter.VisibilityApp {
				return true
			}
		}
	}
	return false
}
