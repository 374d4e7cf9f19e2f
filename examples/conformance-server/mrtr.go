package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
)

// registerMRTR adds the tools and the prompt of the input-required result
// scenarios (SEP-2322, input-required-result-*). The tools are specs
// called through the executor like the others: a handler that needs the
// client's input returns *export.InputRequired, and reads the answers
// and its state from the retried request. The export signs that state
// (input-required-result-tampered-state: an altered one is refused before
// any handler runs).
func registerMRTR(reg *registry.Registry, s *mcp.Server) {
	readOnly := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	reg.MustRegister(
		adapter.MustRawTool("test_input_required_result_elicitation", "Asks the user's name, then greets them.", noArgs(), mrtrElicitation, readOnly),
		adapter.MustRawTool("test_input_required_result_sampling", "Asks the client's model a question.", noArgs(), mrtrSampling, readOnly),
		adapter.MustRawTool("test_input_required_result_list_roots", "Asks the client's roots.", noArgs(), mrtrRoots, readOnly),
		adapter.MustRawTool("test_input_required_result_request_state", "Asks for a confirmation and checks its state.", noArgs(), mrtrConfirm("state-ok"), readOnly),
		adapter.MustRawTool("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered state is refused.", noArgs(), mrtrConfirm("state verified"), readOnly),
		adapter.MustRawTool("test_input_required_result_multiple_inputs", "Asks an elicitation, a sampling and the roots at once.", noArgs(), mrtrMultiple, readOnly),
		adapter.MustRawTool("test_input_required_result_multi_round", "Asks two questions, one per round.", noArgs(), mrtrMultiRound, readOnly),
		adapter.MustRawTool("test_input_required_result_capabilities", "Asks only what the client declared it can answer.", noArgs(), mrtrCapabilities, readOnly),
	)
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for context first"}, mrtrPrompt)
}

// retried returns the answers and the (verified) state of a retried call.
func retried(ctx context.Context) (mcp.InputResponseMap, string) {
	req := export.RequestFromContext(ctx)
	if req == nil || req.Params == nil {
		return nil, ""
	}
	return req.Params.InputResponses, req.Params.RequestState
}

func askString(message, field string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{field: map[string]any{"type": "string"}},
		"required":   []any{field},
	}}
}

func askConfirm() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
		"required":   []any{"ok"},
	}}
}

func askModel(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
}

// accepted returns the content the user accepted under id, or nil.
func accepted(answers mcp.InputResponseMap, id string) map[string]any {
	if er, ok := answers[id].(*mcp.ElicitResult); ok && er.Action == "accept" && er.Content != nil {
		return er.Content
	}
	return nil
}

func sampled(answers mcp.InputResponseMap, id string) (string, bool) {
	r, ok := answers[id].(*mcp.CreateMessageWithToolsResult)
	if !ok {
		return "", false
	}
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " "), true
}

func rootsOf(answers mcp.InputResponseMap, id string) ([]string, bool) {
	r, ok := answers[id].(*mcp.ListRootsResult)
	if !ok {
		return nil, false
	}
	uris := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return uris, true
}

func mrtrElicitation(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, _ := retried(ctx)
	if name, _ := accepted(answers, "user_name")["name"].(string); name != "" {
		return text("Hello, " + name + "!"), nil
	}
	// Not asked yet, or answered under other ids: ask (again).
	return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"user_name": askString("What is your name?", "name")}}
}

func mrtrSampling(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, _ := retried(ctx)
	if s, ok := sampled(answers, "capital_question"); ok {
		return text("The model answered: " + s), nil
	}
	return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"capital_question": askModel("What is the capital of France?", 100)}}
}

func mrtrRoots(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, _ := retried(ctx)
	if uris, ok := rootsOf(answers, "client_roots"); ok {
		return text(fmt.Sprintf("The client has %d roots: %s", len(uris), strings.Join(uris, ", "))), nil
	}
	return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}}
}

// mrtrConfirm asks for a confirmation with a state, and answers done once
// the confirmation comes back with that state.
func mrtrConfirm(done string) adapter.Handler {
	const state = "awaiting-confirmation"
	return func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		answers, got := retried(ctx)
		if c := accepted(answers, "confirm"); c != nil && got == state {
			return text(fmt.Sprintf("%s: confirmed=%v", done, c["ok"])), nil
		}
		return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"confirm": askConfirm()}, State: state}
	}
}

func mrtrMultiple(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	const state = "awaiting-three-answers"
	answers, got := retried(ctx)
	name, _ := accepted(answers, "user_name")["name"].(string)
	greeting, sok := sampled(answers, "greeting")
	roots, rok := rootsOf(answers, "client_roots")
	if got == state && name != "" && sok && rok {
		return text(fmt.Sprintf("%s, %s (%d roots)", greeting, name, len(roots))), nil
	}
	return nil, &export.InputRequired{State: state, Requests: mcp.InputRequestMap{
		"user_name":    askString("What is your name?", "name"),
		"greeting":     askModel("Generate a greeting", 50),
		"client_roots": &mcp.ListRootsParams{},
	}}
}

func mrtrMultiRound(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, state := retried(ctx)
	if name, ok := strings.CutPrefix(state, "round-2:"); ok {
		if color, _ := accepted(answers, "step2")["color"].(string); color != "" {
			return text(fmt.Sprintf("%s's favorite color is %s", name, color)), nil
		}
		return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"step2": askString("Step 2: What is your favorite color?", "color")}, State: state}
	}
	if name, _ := accepted(answers, "step1")["name"].(string); state == "round-1" && name != "" {
		return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"step2": askString("Step 2: What is your favorite color?", "color")}, State: "round-2:" + name}
	}
	return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"step1": askString("Step 1: What is your name?", "name")}, State: "round-1"}
}

// mrtrCapabilities asks only what the request's client capabilities
// (2026-07-28: its _meta) say the client can answer.
func mrtrCapabilities(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	req := export.RequestFromContext(ctx)
	if answers, _ := retried(ctx); len(answers) > 0 {
		return text(fmt.Sprintf("received %d answers", len(answers))), nil
	}
	var caps *mcp.ClientCapabilities
	if req != nil {
		caps = req.ClientCapabilities()
	}
	asks := mcp.InputRequestMap{}
	if caps != nil && caps.Elicitation != nil {
		asks["user_name"] = askString("What is your name?", "name")
	}
	if caps != nil && caps.Sampling != nil {
		asks["greeting"] = askModel("Generate a greeting", 50)
	}
	if caps != nil && caps.RootsV2 != nil {
		asks["client_roots"] = &mcp.ListRootsParams{}
	}
	if len(asks) == 0 {
		return text("the client declared no capability to answer with"), nil
	}
	return nil, &export.InputRequired{Requests: asks}
}

// mrtrPrompt is a go-sdk prompt handler: prompts are the go-sdk server's,
// which returns input-required results natively.
func mrtrPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if c, _ := accepted(req.Params.InputResponses, "user_context")["context"].(string); c != "" {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Use this context: " + c}}}}, nil
	}
	return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": askString("What context should the prompt use?", "context")}}, nil
}
