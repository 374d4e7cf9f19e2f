package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// registerStateless adds the diagnostic tools of the 2026-07-28 transport
// scenarios: server-stateless (SEP-2575: a capability the client did not
// declare, a response stream, logging without a level, list changes on
// subscriptions/listen) and http-custom-header-server-validation (SEP-2243:
// a tool mirroring an argument into an Mcp-Param-* header, which go-sdk
// validates against the body). They are specs called through the executor
// like the others.
func registerStateless(reg *registry.Registry, s *mcp.Server) {
	readOnly := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	var toggle sync.Mutex
	reg.MustRegister(
		adapter.MustRawTool(missingCapabilityTool, "Needs the client's sampling capability (answers -32021 without it).", noArgs(),
			content(&adapter.TextContent{Text: "The client declared sampling; the tool ran."}), readOnly),
		adapter.MustRawTool("test_streaming_elicitation", "Answers on its response stream with the result alone, no request to the client.", noArgs(),
			content(&adapter.TextContent{Text: "result frames only, no top-level requests"}), readOnly),
		adapter.MustRawTool("test_logging_tool", "Logs a message, which the client gets only if it set a log level.", noArgs(), withLogging, readOnly),
		adapter.MustRawTool("test_trigger_tool_change", "Adds transient_tool, or removes it when present, so the tool list changes.", noArgs(),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				if err := toggleTransient(reg, &toggle); err != nil {
					return nil, err
				}
				return text("tools_list_changed published"), nil
			}, nil),
		adapter.MustRawTool("test_trigger_prompt_change", "Adds a prompt, so the prompt list changes.", noArgs(),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				s.AddPrompt(&mcp.Prompt{Name: "transient_prompt", Description: "Added by test_trigger_prompt_change."},
					func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "transient"}}}}, nil
					})
				return text("prompts_list_changed published"), nil
			}, nil),
		adapter.MustRawTool("test_x_mcp_header", "Mirrors region into the Mcp-Param-Region header (SEP-2243).", &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"region": {Type: "string", Description: "mirrored into Mcp-Param-Region", Extra: map[string]any{"x-mcp-header": "Region"}},
				"level":  {Type: "integer", Description: "not mirrored"},
			},
		}, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			var in struct{ Region string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return text("region=" + in.Region), nil
		}, readOnly),
	)
	s.AddReceivingMiddleware(requireSampling)
}

// toggleTransient adds transient_tool to reg, or removes it when it is
// there: each call changes the tool list without redefining a tool (a
// gateway quarantines a tool whose definition changed from its pin, so a
// redefinition need not change the list its clients see). mu makes the
// look-up and the change one step.
func toggleTransient(reg *registry.Registry, mu *sync.Mutex) error {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := reg.Lookup(transientTool); ok {
		return reg.Unregister(transientTool)
	}
	return reg.Register(adapter.MustRawTool(transientTool, "Added by test_trigger_tool_change.", noArgs(),
		content(&adapter.TextContent{Text: "transient"}), &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
}

const transientTool = "transient_tool"

const missingCapabilityTool = "test_missing_capability"

// requireSampling answers a call of test_missing_capability from a client
// that did not declare sampling with MissingRequiredClientCapabilityError
// (-32021, HTTP 400), a protocol error the executor's results cannot
// carry: it is decided before the call, as go-sdk decides a missing
// capability.
func requireSampling(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if cr, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && cr.Params != nil && cr.Params.Name == missingCapabilityTool {
			if caps := cr.ClientCapabilities(); caps == nil || caps.Sampling == nil {
				data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
				return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "the sampling capability is required but the client did not declare it", Data: data}
			}
		}
		return next(ctx, method, req)
	}
}
