package einoadapter

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Middleware returns a ToolsNode middleware that gives eino tools this
// package did not build (utils.InferTool, eino-ext...) its error policy, so
// that their failures no longer abort the graph: an error or a panic
// becomes the payload the model reads ([kit.FailurePayload],
// [kit.PanicPayload]); eino interrupts, a canceled context and faults stay
// Go errors, as do errors in the middle of an output stream (part of the
// answer has gone to the model). Tools built by [Tool] pass unchanged.
func Middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return withPolicy(next, func(p string) *compose.ToolOutput { return &compose.ToolOutput{Result: p} })
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return withPolicy(next, func(p string) *compose.StreamToolOutput {
				return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{p})}
			})
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return withPolicy(next, func(p string) *compose.EnhancedInvokableToolOutput {
				return &compose.EnhancedInvokableToolOutput{Result: textResult(p)}
			})
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return withPolicy(next, func(p string) *compose.EnhancedStreamableToolOutput {
				return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(p)})}
			})
		},
	}
}

// withPolicy wraps one endpoint: a failure or panic that is to be a
// payload becomes the output out(payload); eino's interrupts pass.
func withPolicy[O any](next func(context.Context, *compose.ToolInput) (O, error), out func(string) O) func(context.Context, *compose.ToolInput) (O, error) {
	return func(ctx context.Context, in *compose.ToolInput) (O, error) {
		o, p, err := kit.Contain(ctx, in.Name, in.CallID, isInterrupt, func() (O, error) { return next(ctx, in) })
		if p != "" {
			return out(p), nil
		}
		return o, err
	}
}

func isInterrupt(err error) bool {
	_, rerun := compose.IsInterruptRerunError(err)
	_, info := compose.ExtractInterruptInfo(err)
	return rerun || info
}

func textResult(p string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: p}}}
}

// RunScope returns a callback handler that opens a run scope
// (adapter.WithRun) when a graph or agent run starts, so that the calls of
// one run share its limits and ledger run id; nested graphs, and a ctx that
// has one, keep the outer scope. opts may be nil.
//
//	runnable.Invoke(ctx, in, compose.WithCallbacks(einoadapter.RunScope(nil)))
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
