// Package genkitadapter runs agentadapter tools inside Genkit
// (github.com/firebase/genkit/go): specs, local or imported from MCP
// servers, become genkit tools whose calls go through an
// [adapter.Executor].
//
//	g := genkit.Init(ctx)
//	signal.Reset(os.Interrupt, syscall.SIGTERM) // see "Process-wide effects"
//	tools, err := genkitadapter.Tools(g, reg, exec, nil)
//	if err != nil {
//		log.Fatal(err) // a name clash with a registered genkit tool
//	}
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"),
//		ai.WithPrompt("What is 2+3?"), ai.WithTools(tools...))
//
// # Tools
//
// [NewTool] and [Tools] build unregistered tools for ai.WithTools;
// [DefineTool] and [DefineTools] register them on a *genkit.Genkit. The
// definition a model sees carries the spec's input schema unchanged; the
// output is the model's text (below), so the definition declares no output
// schema. Genkit resolves tools by name and prefers a registered tool to
// an unregistered one, so [Tools] and [DefineTools] report a spec named like
// a registered genkit tool with [ErrNameClash] instead of letting genkit run
// the other tool silently.
//
// Arguments reach the executor as the JSON genkit holds: genkit's own tool
// path would normalise them by schema (integers become int64, other numbers
// float64, null fields vanish) and validate them a second time with another
// validator. One loss is genkit's and happens before any tool runs:
// Generate copies each model message through encoding/json, so integers
// beyond 2^53 have already been rounded to float64. Outputs come back
// through the same copy.
//
// Each call is made with Integration "genkit" and Native set to the *Tool.
// Genkit does not hand a tool its request's ref, so a call's id is the
// executor's own, except on a restart (see Approval), where it is the ref.
//
// # Results and errors
//
// The tool's output is what the model reads of the result: adapter.Render's
// text, the same in every integration (a structured-only result reads as
// its JSON). Genkit's model plugins JSON-encode a tool's output, so text
// that is a JSON object or list is output as that JSON value, which the
// model then reads as JSON; other text is output as a string, which the
// plugins show the model JSON-quoted (a limit of genkit's plugins). Image and audio blocks travel as media parts
// of the tool response (data URLs), never as text. Programs that want the
// structured content read it from the executor (a hook, a guard, the
// ledger) or call the spec.
//
// A model that calls a tool by a name it made up ends genkit's Generate
// with an error; [UnknownToolsMiddleware] is a model middleware that
// answers such calls with the not_found payload, so the model reads it and
// goes on, and records them in the executor's ledger:
//
//	genkit.Generate(ctx, g, ai.WithModel(m), ai.WithTools(tools...),
//		ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
//
// Genkit aborts the whole generation when a tool returns an error. So the
// model-facing kinds (see [adapter.Kind.ModelFacing]: args_invalid,
// tool_error, approval_denied, guardrail_blocked, run_limit_exceeded,
// timeout, not_found) become the tool's output, the payload of
// [adapter.ModelPayload]:
//
//	{"error":{"kind":"tool_error","message":"division by zero","tool":"divide"}}
//
// and the model reads it and carries on. Connection and internal errors are
// returned as Go errors and abort the generation. approval_pending becomes a
// genkit interrupt (below).
//
// # Approval
//
// A call the executor's approval port defers (adapter.Deferred) interrupts
// the generation: genkit.Generate returns a response with FinishReason
// "interrupted" whose interrupted part carries the ticket.
// [Approvals] lists them; once a ticket is approved (Deferred.Approve),
// [Approval.Restart] (or the tool's Restart) makes the part for
// ai.WithToolRestarts, which runs the call presenting its ticket: exactly the
// approved arguments run, once. A denied ticket reaches the model as
// approval_denied; restarting with other arguments (RestartOptions.ReplaceInput)
// is denied too. [Resume] does all of it for a flow:
//
//	resp, err = genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
//		return deferred.Approve(ctx, a.Ticket, "alice")
//	}, ai.WithModel(m), ai.WithTools(tools...))
//
// ai.WithToolResponses (the tool's Respond) answers for the tool instead.
//
// # Run scopes
//
// One agent run is one run scope (run limits, the ledger's run id): the
// caller's, if the ctx given to Generate carries one (adapter.WithRun), or
// else the genkit trace of the call, which spans every turn of a generation
// and every generation of a flow run. The tools built by one Tools or
// DefineTools call share these scopes. A call outside any trace counts
// where the executor counts calls made outside a run.
//
// # Process-wide effects of genkit
//
// These are genkit's, not this package's, but a program using it should know:
//
//   - genkit.Init wraps its context with signal.NotifyContext for SIGINT and
//     SIGTERM and never stops it: from then on Ctrl-C no longer kills the
//     process. Call signal.Reset(os.Interrupt, syscall.SIGTERM) after Init to
//     restore the default, or handle the signals yourself.
//   - The first genkit span installs an OpenTelemetry SDK tracer provider as
//     the global one (replacing a global provider that is not an SDK one);
//     executors that use the global provider then trace into it.
//   - With GENKIT_ENV=dev, Init starts a reflection server on
//     127.0.0.1:3100 or above and writes a .genkit directory beside go.mod.
package genkitadapter
