package main

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// runLangchaingo asks the question through a langchaingo OneShot agent. Its
// tools have no pause mechanism: the model reads approval_pending with a
// ticket, the operator approves, and the model makes the same call again.
// With a real model it runs a function-calling loop instead.
func runLangchaingo(ctx context.Context, e *env) (string, error) {
	if e.llm != nil {
		return runLangchaingoFunctions(ctx, e)
	}
	tools, err := langchaingoadapter.Tools(e.reg, e.exec, nil)
	if err != nil {
		return "", err
	}
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

// retryHint tells a real model how the approval flow goes: the operator
// approves at once, so the same call made again runs.
const retryHint = "When a tool answers approval_pending, an operator approves it right away: make the same call again, with the same arguments."

// runLangchaingoFunctions asks the question of a real model through
// langchaingo's OpenAI client and a function-calling loop: the model sees
// each tool's real JSON schema (the OneShot agent shows it only text).
func runLangchaingoFunctions(ctx context.Context, e *env) (string, error) {
	llm, err := openai.New(openai.WithToken(e.llm.key), openai.WithBaseURL(e.llm.baseURL), openai.WithModel(e.llm.model))
	if err != nil {
		return "", err
	}
	d, err := langchaingoadapter.NewDispatcher(e.reg, e.exec, nil)
	if err != nil {
		return "", err
	}
	stop := e.onPending(ctx)
	defer stop()
	_, final, err := d.Loop(ctx, llm, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, retryHint),
		llms.TextParts(llms.ChatMessageTypeHuman, question),
	}, nil)
	if err != nil {
		return "", err
	}
	return final.Content, nil
}

// onPending approves, as an operator would, every ticket issued until stop
// is called.
func (e *env) onPending(ctx context.Context) (stop func()) {
	e.approvals.OnPending = func(t *approval.Ticket) {
		if err := e.approve(ctx, t.ID, t.Tool, string(t.Args)); err != nil {
			fmt.Fprintln(e.out, "  approval failed:", err)
		}
	}
	return func() { e.approvals.OnPending = nil }
}
