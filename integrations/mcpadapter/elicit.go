package mcpadapter

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/termprompt"
)

// An ElicitationPort puts a server's elicitation/create request to a
// person and returns the answer: Action "accept" with Content (form mode)
// or with no content (URL mode, once the user has opened the URL),
// "decline", or "cancel". It must honour ctx: when the wait exceeds
// ManagerOptions.ElicitationTimeout the request is answered "cancel".
//
// params.Mode is "form" (RequestedSchema is a flat object schema of
// primitive properties) or "url" (URL is to be opened by the user). The
// go-sdk validates accepted content against the schema and fills in the
// schema's defaults for fields left out (SEP-1034).
type ElicitationPort func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)

// elicit answers an elicitation request through the executor.
func (c *conn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation/create without params"}
	}
	p := req.Params
	summary := map[string]any{"server": c.cfg.Name, "mode": cmp.Or(p.Mode, "form"), "message": p.Message}
	if p.RequestedSchema != nil {
		summary["requestedSchema"] = p.RequestedSchema
	}
	if p.URL != "" {
		summary["url"] = p.URL
	}
	var out *mcp.ElicitResult
	err := c.govern(ctx, c.elicitSpec, firstPositive(c.m.opts.ElicitationTimeout, DefaultElicitationTimeout), summary,
		func(ctx context.Context) (*adapter.Result, error) {
			res, err := c.m.opts.Elicitation(ctx, c.cfg.Name, p)
			if err != nil {
				return nil, err
			}
			switch {
			case res == nil:
				return nil, adapter.NewError(adapter.KindToolError, "the elicitation port returned no answer")
			case res.Action != "accept" && res.Action != "decline" && res.Action != "cancel":
				return nil, adapter.NewError(adapter.KindToolError, fmt.Sprintf("the elicitation port answered %q", truncate(res.Action, 40)))
			}
			if res.Action != "accept" {
				res.Content = nil
			}
			out = res
			return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: res.Action}}}, nil
		})
	if err != nil {
		switch kindOf(err) {
		case adapter.KindApprovalDenied, adapter.KindGuardrailBlocked, adapter.KindRunLimitExceeded, adapter.KindApprovalPending:
			return &mcp.ElicitResult{Action: "decline"}, nil
		case adapter.KindTimeout:
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if ctx.Err() != nil {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client could not answer the elicitation: " + truncate(errMessage(err), 300)}
	}
	return out, nil
}

// PromptElicitation returns an ElicitationPort for command-line programs:
// it writes the server's message to out and reads the answer from in, one
// line per field, showing each field's description, allowed values and
// default (an empty line keeps the default, or leaves an optional field
// out). "!decline" or "!cancel" on any line answers so. Prompts from
// several servers are put one at a time.
//
// A read from in cannot be interrupted: when ctx ends mid-prompt the
// request is cancelled, and the line the user was typing goes to the next
// prompt. One goroutine reads in until it ends.
func PromptElicitation(in io.Reader, out io.Writer) ElicitationPort {
	return termprompt.New(in, out)
}
