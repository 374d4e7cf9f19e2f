package einoadapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
)

// Middleware returns a ToolsNode middleware that applies this package's
// error policy to eino tools it did not build (utils.InferTool tools,
// eino-ext tools...), so that their failures no longer abort the graph:
//
//   - an [*adapter.Error] of a model-facing kind, or any other error, or a
//     panic, becomes the payload {"error":{"kind":...,"message":...}} the
//     model reads (plain errors and panics as tool_error, a deadline as
//     timeout);
//   - eino interrupts, a canceled context, and adapter errors of kinds
//     connection and internal stay Go errors.
//
// Tools built by [Tool] already return payloads; the middleware leaves
// them alone. Install it with
//
//	compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()}}
//
// Errors that occur in the middle of a tool's output stream are passed on
// unchanged: part of the answer has already gone to the model.
func Middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (out *compose.ToolOutput, err error) {
				defer recoverPayload(in, &err, func(p string) { out = &compose.ToolOutput{Result: p} })
				out, err = next(ctx, in)
				if p, ok := policy(ctx, in, err); ok {
					return &compose.ToolOutput{Result: p}, nil
				}
				return out, err
			}
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (out *compose.StreamToolOutput, err error) {
				defer recoverPayload(in, &err, func(p string) {
					out = &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{p})}
				})
				out, err = next(ctx, in)
				if p, ok := policy(ctx, in, err); ok {
					return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{p})}, nil
				}
				return out, err
			}
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (out *compose.EnhancedInvokableToolOutput, err error) {
				defer recoverPayload(in, &err, func(p string) { out = &compose.EnhancedInvokableToolOutput{Result: textResult(p)} })
				out, err = next(ctx, in)
				if p, ok := policy(ctx, in, err); ok {
					return &compose.EnhancedInvokableToolOutput{Result: textResult(p)}, nil
				}
				return out, err
			}
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (out *compose.EnhancedStreamableToolOutput, err error) {
				defer recoverPayload(in, &err, func(p string) {
					out = &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(p)})}
				})
				out, err = next(ctx, in)
				if p, ok := policy(ctx, in, err); ok {
					return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(p)})}, nil
				}
				return out, err
			}
		},
	}
}

func textResult(p string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: p}}}
}

// policy decides whether err becomes a payload for the model.
func policy(ctx context.Context, in *compose.ToolInput, err error) (string, bool) {
	if err == nil {
		return "", false
	}
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return "", false
	}
	if _, ok := compose.ExtractInterruptInfo(err); ok {
		return "", false
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return "", false
	}
	var e *adapter.Error
	switch {
	case errors.As(err, &e):
		if !e.Kind.ModelFacing() {
			return "", false
		}
		if e.Tool == "" || e.CallID == "" {
			c := *e
			if c.Tool == "" {
				c.Tool = in.Name
			}
			if c.CallID == "" {
				c.CallID = in.CallID
			}
			e = &c
		}
	case errors.Is(err, context.DeadlineExceeded):
		e = &adapter.Error{Kind: adapter.KindTimeout, Tool: in.Name, CallID: in.CallID, Message: "the tool did not finish before its deadline", Err: err}
	default:
		e = &adapter.Error{Kind: adapter.KindToolError, Tool: in.Name, CallID: in.CallID, Message: err.Error(), Err: err}
	}
	return adapter.ModelPayload(e)
}

// recoverPayload turns a panicking foreign tool into a tool_error payload,
// as the executor does for handlers.
func recoverPayload(in *compose.ToolInput, err *error, set func(string)) {
	v := recover()
	if v == nil {
		return
	}
	slog.Default().Error("einoadapter: tool panicked", "tool", in.Name, "call_id", in.CallID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	p, _ := adapter.ModelPayload(&adapter.Error{Kind: adapter.KindToolError, Tool: in.Name, CallID: in.CallID, Message: "the tool failed unexpectedly (it panicked)"})
	set(p)
	*err = nil
}

// RunScope returns a callback handler that opens an adapter run scope
// (adapter.WithRun) when a graph or agent run starts, so that the tool
// calls of one run share its limits and its ledger run id. Nested graphs
// share the outer run, as does a ctx that already carries one. opts may be
// nil; a fixed opts.ID names every run alike.
//
//	agent.Generate(ctx, msgs, agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
//	runnable.Invoke(ctx, in, compose.WithCallbacks(einoadapter.RunScope(nil)))
//
// Without it (and without adapter.WithRun on the ctx), calls count where
// the executor counts calls made outside a run.
func RunScope(opts *adapter.RunOptions) callbacks.Handler {
	open := func(ctx context.Context) context.Context {
		ctx, _ = adapter.WithRun(ctx, opts)
		return ctx
	}
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			return open(ctx)
		}).
		OnStartWithStreamInputFn(func(ctx context.Context, _ *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
			in.Close()
			return open(ctx)
		}).
		Build()
}
