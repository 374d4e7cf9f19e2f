// Package einoadapter runs agentadapter tools inside Eino
// (github.com/cloudwego/eino): registry specs become eino tools whose calls
// go through an [adapter.Executor]; what integrations share is package [kit]'s.
//
//	tools, err := einoadapter.Tools(reg, exec, nil)
//	cfg := compose.ToolsNodeConfig{Tools: tools,
//		ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()},
//		UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec)}
//	out, err := graph.Invoke(ctx, in, compose.WithCallbacks(einoadapter.RunScope(nil)))
//
// Eino aborts a graph on a tool's error, so a model-facing failure is the
// tool's output with a nil error ([kit.Triage]); faults stay Go errors. A
// call held for approval interrupts the graph ([PendingFromError]); the
// react agent has no checkpoint store, so run its ExportGraph in a graph
// compiled with one (see examples/eino), or set [Options.PendingAsPayload].
// Per-call options ([WithTimeout], [WithApproval], [WithExecutor]) travel
// through compose.WithToolOption or react.WithToolOptions.
package einoadapter
