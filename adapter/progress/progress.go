// Package progress carries progress reports from a running tool to its
// caller through the context:
//
//	ctx = progress.With(ctx, func(e progress.Event) {
//		fmt.Printf("%.0f/%.0f %s\n", e.Progress, e.Total, e.Message)
//	})
//	exec.Call(ctx, "index", args)
//
// and, in the tool's handler:
//
//	if progress.Wanted(ctx) {
//		progress.Report(ctx, progress.Event{Progress: 3, Total: 10, Message: "indexing"})
//	}
//
// The MCP export sets a listener to send notifications/progress; a caller
// of an imported MCP tool sets one to receive the server's progress. The
// package imports only the standard library.
package progress

import "context"

// An Event is a progress report from a running tool.
type Event struct {
	// Progress is the work done so far, in the tool's own unit.
	Progress float64
	// Total is 0 when unknown.
	Total float64
	// Message describes the current step, if anything.
	Message string
}

type key struct{}

// With returns a context whose tool calls report progress to fn.
// The MCP export sets it to send notifications/progress; a caller of an
// imported MCP tool sets it to receive the server's progress.
func With(ctx context.Context, fn func(Event)) context.Context {
	return context.WithValue(ctx, key{}, fn)
}

// Wanted reports whether the caller listens for progress (see [With]), so
// that a handler can skip preparing reports nobody reads; imported MCP
// tools ask the server for progress only then.
func Wanted(ctx context.Context) bool {
	fn, _ := ctx.Value(key{}).(func(Event))
	return fn != nil
}

// Report sends a progress report to the caller, if it listens.
func Report(ctx context.Context, e Event) {
	if fn, _ := ctx.Value(key{}).(func(Event)); fn != nil {
		fn(e)
	}
}
