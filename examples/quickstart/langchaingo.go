package main

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// runLangchaingo asks the question through a langchaingo OneShot agent. Its
// tools have no pause mechanism: the model reads approval_pending with a
// ticket, the operator approves, and the model makes the same call again.
func runLangchaingo(ctx context.Context, e *env) (string, error) {
	tools := langchaingoadapter.Tools(e.reg, &langchaingoadapter.Options{Executor: e.exec})
	steps := script("langchaingo")
	steps = append(steps, steps[len(steps)-1]) // the retry once approved
	var replies []string
	for _, s := range steps {
		replies = append(replies, fmt.Sprintf("Thought: I need %s.\nAction: %s\nAction Input: %s", s.tool, s.tool, s.args))
	}
	replies = append(replies, "Final Answer: Paris is 21.5°C; Atlantis has no station; 20 EUR is 21.6 USD; the draft is deleted.")
	agent := agents.NewOneShotAgent(fake.NewFakeLLM(replies), tools, agents.WithMaxIterations(len(replies)))
	exec := agents.NewExecutor(agent, agents.WithMaxIterations(len(replies)))

	// The operator approves tickets as they are issued.
	stop := e.onPending(ctx)
	defer stop()
	return langchaingoadapter.Run(ctx, exec, question, nil)
}

// onPending approves, as an operator would, every ticket issued until stop
// is called.
func (e *env) onPending(ctx context.Context) (stop func()) {
	e.approvals.OnPending = func(t *adapter.Ticket) {
		if err := e.approve(ctx, t.ID, t.Tool, string(t.Args)); err != nil {
			fmt.Fprintln(e.out, "  approval failed:", err)
		}
	}
	return func() { e.approvals.OnPending = nil }
}
