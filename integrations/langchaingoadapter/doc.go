// Package langchaingoadapter runs agentadapter tools inside langchaingo
// (github.com/tmc/langchaingo): as tools.Tool values for langchaingo's
// agents, and as function definitions with full JSON schemas plus a
// dispatcher for function-calling loops.
//
//	reg := registry.New()
//	reg.MustRegister(adapter.MustTool("add", "Adds two numbers.", add, nil))
//	exec := adapter.NewExecutor(reg, nil)
//	defer exec.Close()
//
//	tools, err := langchaingoadapter.Tools(reg, exec, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	agent := agents.NewOneShotAgent(llm, tools)
//	out, err := langchaingoadapter.Run(ctx, agents.NewExecutor(agent), "What is 2+3?", nil)
//
// Every call goes through an [adapter.Executor] (validation, hooks, guards,
// approval, cache, limits, timeout, ledger); this package only translates
// langchaingo's calling convention.
//
// # Input
//
// langchaingo hands a tool one string. [Tool.Call] accepts, after trimming
// white space and Markdown code fences:
//   - a JSON object, the arguments;
//   - {"__arg1": ...}, the wrapper OpenAIFunctionsAgent sends, whose value
//     may be an object, a string holding one, or a bare value;
//   - a bare value for a tool with a single parameter (or a single required
//     one): Paris for {"city": "Paris"}, 3 for {"n": 3};
//   - nothing, for a tool with no required parameters.
//
// Anything else is answered with an args_invalid payload that shows the
// shape to send. A text agent learns that shape from the tool's
// description ([kit.Description]): one compact line such as
// Input: a JSON object {"a": integer, "b"?: string}, a fraction of the size
// of the schema.
//
// # Results
//
// A tool's observation (and a Dispatcher's tool message) is
// adapter.Render's text of the result, the same text every integration
// gives a model; [Options.Render] and [DispatcherOptions.Render] tune it.
//
// # Errors
//
// Kinds the model can act on (args_invalid, tool_error, approval_denied,
// approval_pending, guardrail_blocked, run_limit_exceeded, timeout,
// not_found) are returned as the observation, a payload string
// {"error":{"kind":"...","message":"..."}}, with a nil error: langchaingo's
// agent executor ends the run on any error a tool returns. Connection and
// internal faults are returned as errors (*adapter.Error).
//
// langchaingo's agents do not pass their callbacks handler to tools; set
// [Options.Callbacks] to receive HandleToolStart, then HandleToolEnd or
// HandleToolError, for every call.
//
// # Approval
//
// With a blocking approval port the call waits for the decision. With
// [adapter.Deferred] the model reads an approval_pending payload carrying
// the ticket; once the ticket is approved, the same call (same arguments,
// in any key order) runs, once.
//
// # Function calling
//
// langchaingo's OpenAIFunctionsAgent advertises every tool as taking one
// string. For real schemas, use [Definitions] (or a [Dispatcher]'s Tools)
// with llms.WithTools, and answer the model's tool calls with
// [Dispatcher.Dispatch], which runs them in parallel and returns the tool messages to append; [Dispatcher.Loop] runs the whole
// loop. With Strict, schemas are converted for strict mode ([kit.Strict]):
// what cannot be converted is reported as a [kit.Issue], never dropped silently.
//
// # Run scope
//
// Run limits count the calls of one agent run, the run scope carried by the
// ctx the agent runs with ([adapter.WithRun]). Run an agent with [Run]
// (one run per call of the chain), or open a scope on ctx yourself;
// [Dispatcher.Loop] opens one per loop. A tool call never opens a scope of
// its own: outside any run it counts where the executor counts calls made
// outside a run.
package langchaingoadapter
