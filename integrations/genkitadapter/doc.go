// Package genkitadapter runs agentadapter tools inside Genkit
// (github.com/firebase/genkit/go): specs, local or imported from MCP
// servers, become genkit tools whose calls go through an
// [adapter.Executor], on the shared [kit].
//
//	g := genkit.Init(ctx)
//	signal.Reset(os.Interrupt, syscall.SIGTERM) // see "Process-wide effects"
//	tools, err := genkitadapter.Tools(g, reg, exec, nil)
//	if err != nil {
//		log.Fatal(err) // a name clash with a registered genkit tool
//	}
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"),
//		ai.WithPrompt("What is 2+3?"), ai.WithTools(tools...),
//		ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
//
// # Tools
//
// [NewTool] and [Tools] build unregistered tools for ai.WithTools;
// [DefineTool] and [DefineTools] register them. Genkit prefers a registered
// tool to an unregistered one of the same name, so a clash is reported
// ([ErrNameClash]). Arguments reach the executor as the JSON genkit holds,
// but Generate copies each message through encoding/json, so integers
// beyond 2^53 are rounded before any tool runs. A call's id is the
// executor's own (genkit does not hand a tool its request's ref), except
// on a restart, where it is the ref.
//
// # Results and errors
//
// The output is adapter.Render's text, as a JSON value when it is a JSON
// object or list ([kit.TextValue]); images and audio travel as media parts
// (data URLs). Genkit aborts a generation when a tool returns an error, so
// every model-facing kind is the tool's output, its payload ([kit.Triage]);
// connection and internal faults abort it; approval_pending is an
// interrupt. A made-up tool name ends Generate with an error unless
// [UnknownToolsMiddleware] answers it with the not_found payload.
//
// # Approval
//
// A deferred call interrupts the generation (FinishReason "interrupted")
// with the ticket in the interrupted part ([Approvals]). Once the ticket is
// approved, [Approval.Restart] (or the tool's Restart) makes the part for
// ai.WithToolRestarts, which runs exactly the approved arguments, once; a
// denied ticket, or other arguments, reads approval_denied. [Resume] does
// all of it for a flow:
//
//	resp, err = genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
//		return deferred.Approve(ctx, a.Ticket, "alice")
//	}, ai.WithModel(m), ai.WithTools(tools...))
//
// # Run scopes
//
// One agent run is one run scope: the caller's (adapter.WithRun on the ctx
// given to Generate), else the genkit trace of the call, which spans every
// turn of a generation and every generation of a flow run, shared by the
// tools of one Tools or DefineTools call ([kit.TraceRuns]).
//
// # Process-wide effects of genkit
//
//   - genkit.Init wraps its context with signal.NotifyContext for SIGINT and
//     SIGTERM and never stops it: Ctrl-C no longer kills the process. Call
//     signal.Reset(os.Interrupt, syscall.SIGTERM) after Init, or handle them.
//   - The first genkit span installs an OpenTelemetry SDK tracer provider as
//     the global one; executors that use the global provider trace into it.
//   - With GENKIT_ENV=dev, Init starts a reflection server on
//     127.0.0.1:3100 or above and writes a .genkit directory beside go.mod.
package genkitadapter
