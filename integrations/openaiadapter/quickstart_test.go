package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// openaiRun asks question through Chat Completions with the tools of reg
// (the quickstart's proposal): client is openai.NewClient() with a key, or
// the scripted one. A held call stops the loop; approve decides its ticket
// and Resume runs exactly the approved arguments, once.
func openaiRun(ctx context.Context, client openai.Client, reg *registry.Registry, exec *adapter.Executor, question string,
	approve func(context.Context, *kit.HeldCall) error) (string, error) {
	ts, err := openaiadapter.New(reg, exec, &openaiadapter.Options{Strict: true, MaxTurns: 20})
	if err != nil {
		return "", err
	}
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT6Astra,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)}}
	conv, err := ts.Loop(ctx, &client.Chat.Completions, params)
	for range 5 { // a real model may ask for several approvals in turn
		if !errors.Is(err, openaiadapter.ErrPending) {
			break
		}
		for _, h := range conv.Held {
			if err := approve(ctx, h); err != nil {
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

// scriptedOpenAI is the quickstart's offline model behind the real client:
// one tool call per turn, then an answer quoting what the tools returned.
func scriptedOpenAI(steps [][2]string) (openai.Client, func()) {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req wireRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		var read []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				read = append(read, m.text())
			}
		}
		reply := completion("I read: " + strings.Join(read, "; "))
		if n := len(read); n < len(steps) {
			reply = completion("", toolCall(fmt.Sprint("call_", n), steps[n][0], steps[n][1]))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply)
	}))
	return openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-scripted")), srv.Close
}

// TestQuickstart: the quickstart's run, offline: a read-only lookup, then
// a deletion held for approval, approved, run once.
func TestQuickstart(t *testing.T) {
	reg := registry.New()
	deleted := 0
	reg.MustRegister(adapter.MustTool("weather", "Current weather.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny in " + in.City, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText, Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(false)}}),
		adapter.MustTool("delete_report", "Deletes a report.", func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			deleted++
			return "deleted " + in.Name, nil
		}, &adapter.ToolOptions{Output: adapter.OutputText}))
	port := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	defer exec.Close()
	client, stop := scriptedOpenAI([][2]string{{"weather", `{"city":"Paris"}`}, {"delete_report", `{"name":"draft"}`}})
	defer stop()
	var approved []string
	answer, err := openaiRun(bg, client, reg, exec, "Weather in Paris? And delete the draft report.", func(ctx context.Context, h *kit.HeldCall) error {
		approved = append(approved, h.Tool+" "+h.Args)
		return port.Approve(ctx, h.Ticket, "operator")
	})
	if err != nil {
		t.Fatal(err)
	}
	if answer != "I read: sunny in Paris; deleted draft" || deleted != 1 || len(approved) != 1 || approved[0] != `delete_report {"name":"draft"}` {
		t.Errorf("answer %q, %d deletions, approved %v", answer, deleted, approved)
	}
}
