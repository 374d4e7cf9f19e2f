package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
)

// runOpenAI asks the question through the official OpenAI Go SDK: Chat
// Completions with the registry's tools (strict schemas), the whole
// conversation one run scope. A held call stops the loop with
// ErrPending; once approved, Resume runs exactly its arguments, once.
func runOpenAI(ctx context.Context, e *env) (string, error) {
	ts, err := openaiadapter.New(e.reg, e.exec, &openaiadapter.Options{Strict: true, MaxTurns: 20})
	if err != nil {
		return "", err
	}
	client, model, stop := openaiClient(e)
	defer stop()
	params := openai.ChatCompletionNewParams{Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(retryHint), openai.UserMessage(question)}}
	conv, err := ts.Loop(ctx, &client.Chat.Completions, params)
	for range 5 { // a real model may ask for several approvals in turn
		if !errors.Is(err, openaiadapter.ErrPending) {
			break
		}
		for _, h := range conv.Held {
			if err := e.approve(ctx, h.Ticket, h.Tool, h.Args); err != nil {
				return "", err
			}
		}
		conv, err = ts.Resume(ctx, &client.Chat.Completions, conv, params)
	}
	if err != nil {
		return "", err
	}
	return conv.Completion.Choices[0].Message.Content, nil
}

// openaiClient is the provider's client (OPENAI_API_KEY), or, offline, one
// whose API is a scripted model served in this process: one tool call per
// turn (script("openai")), then an answer quoting what the tools returned.
func openaiClient(e *env) (openai.Client, string, func()) {
	if e.llm != nil {
		return openai.NewClient(option.WithAPIKey(e.llm.key), option.WithBaseURL(e.llm.baseURL)), e.llm.model, func() {}
	}
	steps := script("openai")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		var read []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				read = append(read, m.Content)
			}
		}
		msg := openai.ChatCompletionMessage{Role: "assistant", Content: "I read: " + strings.Join(read, "; ")}
		if n := len(read); n < len(steps) {
			msg = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{
				ID: fmt.Sprintf("call_%d", n+1), Type: "function",
				Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: steps[n].tool, Arguments: steps[n].args}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(openai.ChatCompletion{ID: "chatcmpl-quickstart", Object: "chat.completion",
			Model: "scripted", Choices: []openai.ChatCompletionChoice{{FinishReason: "stop", Message: msg}}})
	}))
	return openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-scripted"), option.WithMaxRetries(0)), "scripted", srv.Close
}
