package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/sampling"
)

// A Sampler answers a server's sampling/createMessage request with a model
// of the application's own: the system prompt, messages (text, images,
// audio), maximum tokens, stop sequences, temperature and model
// preferences of params go to the model, and its reply comes back. The
// einoadapter, genkitadapter and langchaingoadapter packages each make a
// framework-neutral [kit.Sampler] from their framework's model; [Sample]
// turns it into a Sampler.
//
// A Sampler returns an error for a request it cannot serve (a content type
// its model does not take); the server receives it as a JSON-RPC error.
type Sampler func(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// codeRefused is the JSON-RPC error code MCP uses for a sampling request
// the client's user (here: its policy) refused.
const codeRefused = -1

// sample answers a sampling request through the executor.
func (c *conn) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage without params"}
	}
	p := req.Params
	var out *mcp.CreateMessageResult
	err := c.govern(ctx, c.samplingSpec, firstPositive(c.m.opts.SamplingTimeout, DefaultSamplingTimeout), sampling.Summary(c.cfg.Name, p),
		func(ctx context.Context) (*adapter.Result, error) {
			res, err := c.m.opts.Sampler(ctx, p)
			if err != nil {
				return nil, err
			}
			if res == nil {
				return nil, adapter.NewError(adapter.KindToolError, "the model returned no message")
			}
			if res.Role == "" {
				res.Role = "assistant"
			}
			out = res
			var text string
			if t, ok := res.Content.(*mcp.TextContent); ok {
				text = t.Text
			}
			return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: text}}}, nil
		})
	if err != nil {
		c.m.logger.Warn("mcpadapter: sampling request not answered", "server", c.cfg.Name, "kind", kindOf(err))
		switch kindOf(err) {
		case adapter.KindApprovalDenied, adapter.KindApprovalPending, adapter.KindGuardrailBlocked, adapter.KindRunLimitExceeded:
			return nil, &jsonrpc.Error{Code: codeRefused, Message: "the client refused the sampling request: " + string(kindOf(err))}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client's model did not answer: " + truncate(errMessage(err), 300)}
	}
	return out, nil
}

// errMessage is the model-safe message of an executor error.
func errMessage(err error) string {
	if ae, ok := err.(*adapter.Error); ok && ae.Message != "" {
		return ae.Message
	}
	return err.Error()
}
