// Package langchaingoadapter runs agentadapter tools inside langchaingo
// (github.com/tmc/langchaingo): as tools.Tool values for its agents, and
// as function definitions with full JSON schemas plus a dispatcher for
// function-calling loops.
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
// Every call goes through an [adapter.Executor]; this package only
// translates langchaingo's calling convention, on the shared [kit].
//
// # Input, results and errors
//
// langchaingo hands a tool one string: a JSON object, OpenAIFunctionsAgent's
// {"__arg1": ...} wrapper, a bare value for a tool with one parameter, or
// nothing ([kit.ParseInput]); a text agent learns the shape to send from
// the tool's description ([kit.Description]). The observation is
// adapter.Render's text. langchaingo's agent executor ends the run on any
// error a tool returns, so every model-facing kind, approval_pending (its
// ticket included) too, is the observation, a payload
// {"error":{"kind":"...","message":"..."}}, with a nil error
// ([kit.TriagePayload]); connection and internal faults are errors
// (*adapter.Error). Once an approval_pending ticket is approved, the same
// call (same arguments, in any key order) runs, once. The agents do not
// pass their callbacks handler to tools: set [Options.Callbacks].
//
// # Function calling
//
// For real schemas, pass [Definitions] (or a [Dispatcher]'s Tools) with
// llms.WithTools, and answer the model's tool calls with
// [Dispatcher.Dispatch]; [Dispatcher.Loop] runs the whole loop. With
// Strict, what strict mode cannot express is reported as a [kit.Issue],
// never dropped silently.
//
// # Run scope
//
// Run limits count the calls of one agent run, the run scope of the ctx
// the agent runs with ([adapter.WithRun]): run an agent with [Run], or
// open a scope on ctx yourself; [Dispatcher.Loop] opens one per loop. A
// tool call never opens a scope of its own.
package langchaingoadapter
