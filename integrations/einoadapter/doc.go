// Package einoadapter runs agentadapter tools in Eino (github.com/cloudwego/eino):
// registry specs become eino tools calling through an [adapter.Executor].
//
//	tools, err := einoadapter.Tools(reg, exec, nil)
//	cfg := compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec),
//		ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()}}
//	out, err := graph.Invoke(ctx, in, compose.WithCallbacks(einoadapter.RunScope(nil)))
//
// Eino aborts a graph on a tool's error, so a model-facing failure is the
// output, with a nil error ([kit.Triage]). A call held for approval
// interrupts the graph ([PendingFromError]); the react agent has no
// checkpoint store: run its ExportGraph in a graph compiled with one
// (examples/eino), or set [Options.PendingAsPayload]. Per-call options
// ([WithTimeout], [WithApproval], [WithExecutor]) go through compose.WithToolOption.
package einoadapter
