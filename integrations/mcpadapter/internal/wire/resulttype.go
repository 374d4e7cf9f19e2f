package wire

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CompleteResultType is receiving middleware that marks the tools/call,
// prompts/get and resources/read results of a 2026-07-28 client
// resultType "complete". go-sdk sets it only on results its own handlers
// return; the export answers some of these methods in middleware (a
// made-up tool's not_found, the upstreams' reads and prompts), and a
// 2026-07-28 client must refuse a result without it (the TypeScript
// client does). An input_required result is left as it is.
func CompleteResultType(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || res == nil || !ModernSession(req) {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.CallToolResult:
			if r != nil && !r.NeedsInput() {
				out := withComplete[mcp.CallToolResult]()
				out.Meta, out.Content, out.StructuredContent, out.IsError, out.RequestState = r.Meta, r.Content, r.StructuredContent, r.IsError, r.RequestState
				return out, nil
			}
		case *mcp.GetPromptResult:
			if r != nil && !r.NeedsInput() {
				out := withComplete[mcp.GetPromptResult]()
				out.Meta, out.Description, out.Messages, out.RequestState = r.Meta, r.Description, r.Messages, r.RequestState
				return out, nil
			}
		case *mcp.ReadResourceResult:
			if r != nil && !r.NeedsInput() {
				out := withComplete[mcp.ReadResourceResult]()
				out.Meta, out.Cacheable, out.Contents, out.RequestState = r.Meta, r.Cacheable, r.Contents, r.RequestState
				return out, nil
			}
		}
		return res, nil
	}
}

// withComplete returns a zero result whose resultType is "complete": the
// field is unexported, and go-sdk's decoder is the one public way to set
// it. The decoding is done once per type (completeTemplate); each result
// is a copy of it, which a struct assignment makes, unexported fields and
// all (the template's exported fields are zero: TestCompleteTemplatesZero).
func withComplete[T any]() *T {
	out := new(T)
	*out = *completeTemplate[T]()
	return out
}

var (
	completeCall     = sync.OnceValue(decodeComplete[mcp.CallToolResult])
	completePrompt   = sync.OnceValue(decodeComplete[mcp.GetPromptResult])
	completeResource = sync.OnceValue(decodeComplete[mcp.ReadResourceResult])
)

// completeTemplate is the decoded {"resultType":"complete"} of T.
func completeTemplate[T any]() *T {
	var v any
	switch any((*T)(nil)).(type) {
	case *mcp.CallToolResult:
		v = completeCall()
	case *mcp.GetPromptResult:
		v = completePrompt()
	case *mcp.ReadResourceResult:
		v = completeResource()
	default:
		v = decodeComplete[T]()
	}
	return v.(*T)
}

func decodeComplete[T any]() *T {
	out := new(T)
	_ = json.Unmarshal([]byte(`{"resultType":"complete"}`), out)
	return out
}

// ModernSession reports whether req comes from a 2026-07-28 (or later)
// client, as go-sdk decides it for the results of its own handlers.
func ModernSession(req mcp.Request) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}
