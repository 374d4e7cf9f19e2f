// Package kit is what every integration of the executor with an agent
// framework shares: spec selection and the checks every constructor makes,
// the triage of an executor error into what the framework does with it,
// run scopes for frameworks that hand a tool only the context of a turn,
// and a framework-neutral sampler. An integration adds only its
// framework's calling convention and types. Package kittest checks an
// integration against the promises all of them keep.
// Helpers for the conversions: [ParseSchema] and [DecodeKeywords] (schemas), [ToolMeta] (tool metadata), [StreamText] (streamed text), [FailurePayload] (the framework's own tools failing).
//
// A minimal integration, for a framework whose tool is a func from JSON
// text to text:
//
//	// Tools returns the specs of reg exported to "myfw", each running its
//	// calls through exec.
//	func Tools(reg *registry.Registry, exec *adapter.Executor) (map[string]func(ctx context.Context, args string) (string, error), error) {
//		specs, err := kit.Specs(reg, exec, registry.Filter{}, "myfw")
//		if err != nil {
//			return nil, fmt.Errorf("myfw: %w", err)
//		}
//		tools := map[string]func(context.Context, string) (string, error){}
//		for _, s := range specs {
//			tools[s.Name] = func(ctx context.Context, args string) (string, error) {
//				res, err := exec.Do(ctx, &adapter.Request{Spec: s, Args: json.RawMessage(args), Integration: "myfw"})
//				if err != nil {
//					o := kit.TriagePayload(err)
//					return o.Payload, o.Err
//				}
//				return adapter.Render(res, nil), nil
//			}
//		}
//		return tools, nil
//	}
//
// # Outcomes
//
// The executor fails a call with an *adapter.Error. [Triage] sorts it into
// an [Outcome]: a payload the model reads in place of a result (bad
// arguments, a tool error, a denial, a guardrail, a run limit, a timeout,
// an unknown tool), a call held for approval (its ticket), or an
// infrastructure fault, returned as a Go error that ends the run. A
// framework that can interrupt a run turns Pending into its interrupt; one
// that cannot uses [TriagePayload], which hands the model the
// approval_pending payload, ticket included. Which kinds are payloads is
// [adapter.Kind.ModelFacing]'s decision, the same in every integration.
// Helpers: [CallText], [Unknown] and [Resolve] for calls, [Held] and [Resume] for interrupts.
// For text tools and function calling: [TextCaller] and [Observe] (text calls, failures as payloads), [Answers] (one turn's calls), [Loop] (a whole loop), [Define] (function definitions).
// For tools that answer with parts: [RawTool] (the core of a tool on raw JSON), [CallParts] and [ApplyResume], [MapParts] and [TextMedia] (to a framework's parts); [CheckNames] for name clashes, [AnswerUnknown] for unknown tools with no hook, [TraceRuns] for a run per trace.
// For tools handed JSON text that interrupt for approval: [JSONTool] ([HeldCall], [HeldCalls]); [UnknownHook] for an unknown-tool hook, [UnmarshalContained] for a decoder that panics, [MetaTitle] and the other keys of [ToolMeta].
// For a framework whose loop runs tools that can neither stop it nor learn their call's id: [Conversation] (held calls, the first fault, [HeldAmong]) and [CallIDs], the ids of a turn's calls.
//
// # Run scopes
//
// Run limits and the ledger's run id span one agent run, which the
// executor finds in the call's context ([adapter.WithRun]). A framework
// that passes its run's context to tools needs nothing more. One that hands
// a tool only the context of a turn names the run some other way (genkit: a
// trace id); [RunScopes] maps that name to one [adapter.Run], remembering
// the most recent [DefaultMaxRuns]. A conversation resumed after a hold
// goes on in the scope it began in: [ContinueRun].
//
// # Sampling
//
// An MCP server may ask the client's model for a completion. A [Sampler]
// answers with the application's own model, over neutral types
// ([SampleRequest], [SampleResult]) that each framework integration maps
// from its model, so that no framework module depends on the MCP SDK;
// mcpadapter.Sample turns a Sampler into the MCP client's handler:
//
//	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{
//		Executor: exec,
//		Sampler:  mcpadapter.Sample(einoadapter.Sampler(chatModel)),
//	})
//
// # Testing an integration
//
// kittest.Run runs one table of cases against an integration, in the
// spirit of testing/slogtest: the integration gives a [kittest.Harness]
// whose Run drives calls through its framework's own agent loop with a
// scripted model and returns what the model read; the kit checks the
// render golden byte for byte, model-facing errors as payloads, faults as
// Go errors, unknown tools, approval and run limits. The integrations of
// this module each run it as TestKit; a user's integration can too.
package kit
