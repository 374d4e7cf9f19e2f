// Command anthropic asks the quickstart's question through the Anthropic Go
// SDK's own tool runner (anthropic-sdk-go/v2), every call governed by one
// executor: a failing call the model reads and survives, and a call held
// for approval that stops the conversation until the operator approves it,
// then runs once with exactly the approved arguments.
//
//	go run .          # in examples/anthropic: offline, a scripted model
//
// With ANTHROPIC_API_KEY set (ANTHROPIC_MODEL optional) it asks Claude.
//
// It is a module of its own, outside go.work and outside examples/quickstart:
// every anthropic-sdk-go v2 release requires invopop/jsonschema v0.14.0, and
// genkit v1.4.0's dotprompt compiles only against v0.13.0, so one build
// list cannot hold the Anthropic SDK and Genkit (scripts/standalone-modules).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// question is the quickstart's, less its currency tool (an MCP import).
const question = "What is the weather in Paris and in Atlantis, and please delete the draft report."

type WeatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type WeatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

type DeleteIn struct {
	Name string `json:"name" jsonschema:"the report to delete"`
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	closedWorld := false
	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("get_weather", "Current weather for a city.",
			func(_ context.Context, in WeatherIn) (WeatherOut, error) {
				if in.City == "Atlantis" {
					return WeatherOut{}, errors.New("no weather station in Atlantis")
				}
				return WeatherOut{City: in.City, TempC: 21.5}, nil
			}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closedWorld}}),
		// No hints: destructive, as MCP assumes by default, so it needs approval.
		adapter.MustTool("delete_report", "Delete a report.",
			func(_ context.Context, in DeleteIn) (string, error) { return "deleted " + in.Name, nil }, nil),
	)
	led := ledger.NewMemory(100)
	approvals := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: approvals}, // by annotations: delete_report is held
		Ledger:   led,
		Hooks:    []adapter.Hook{trace(out)},
		Timeout:  10 * time.Second,
	})
	defer exec.Close()

	tools, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		return err
	}
	client, model, stop := anthropicClient()
	defer stop()
	params := anthropic.BetaToolRunnerParams{MaxIterations: 20, BetaMessageNewParams: anthropic.BetaMessageNewParams{
		Model: model, MaxTokens: 1024,
		Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(question))},
	}}
	msg, err := tools.Run(ctx, &client.Beta.Messages, params)
	for range 5 { // a real model may ask for several approvals in turn
		var held *anthropicadapter.Held
		if !errors.As(err, &held) {
			break
		}
		for _, c := range held.Calls {
			fmt.Fprintf(out, "  approval: %s %s (ticket %s) approved by operator\n", c.Tool, c.Args, c.Ticket)
			if err := approvals.Approve(ctx, c.Ticket, "operator"); err != nil {
				return err
			}
		}
		msg, err = tools.Resume(ctx, &client.Beta.Messages, params, held)
	}
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, b := range msg.Content {
		text.WriteString(b.Text)
	}
	fmt.Fprintf(out, "  answer: %s\n", strings.ReplaceAll(strings.TrimSpace(text.String()), "\n", "\n          "))

	if err := exec.Flush(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "ledger:")
	for _, r := range led.Records() {
		fmt.Fprintf(out, "  %-10s %-14s %-17s run=%s\n", r.Integration, r.Tool, r.Outcome, r.RunID)
	}
	return nil
}

// trace is a hook printing every call and what came back.
func trace(out io.Writer) adapter.Hook {
	return func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			res, err := next(ctx, c)
			var ae *adapter.Error
			switch {
			case err == nil:
				fmt.Fprintf(out, "  [%s] %s %s -> %s\n", c.Integration, c.Tool, c.Args, res.Text())
			case errors.As(err, &ae):
				fmt.Fprintf(out, "  [%s] %s %s -> %s: %s\n", c.Integration, c.Tool, c.Args, ae.Kind, ae.Message)
			}
			return res, err
		}
	}
}

// anthropicClient returns a Messages API client and the model to ask: with
// ANTHROPIC_API_KEY set, Anthropic's (ANTHROPIC_MODEL, else Sonnet 5.5);
// otherwise a scripted model served in this process.
func anthropicClient() (anthropic.Client, anthropic.Model, func()) {
	if os.Getenv("ANTHROPIC_API_KEY") != "" {
		return anthropic.NewClient(), anthropic.Model(cmp.Or(os.Getenv("ANTHROPIC_MODEL"), string(anthropic.ModelClaudeSonnet5_5))), func() {}
	}
	srv := httptest.NewServer(&scripted{steps: []step{
		{"get_weather", `{"city":"Paris"}`},
		{"get_weather", `{"city":"Atlantis"}`},
		{"delete_report", `{"name":"draft-anthropic.txt"}`},
	}})
	return anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("offline"), option.WithMaxRetries(0)), "scripted", srv.Close
}

// step is one tool call of the scripted model.
type step struct{ tool, args string }

// scripted is a Messages API: one tool call per turn, then an answer
// quoting what the tools returned.
type scripted struct {
	mu    sync.Mutex
	steps []step
	n     int
}

func (m *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req anthropic.BetaMessageNewParams
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	reply := map[string]any{"id": fmt.Sprint("msg_", m.n), "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": anthropic.BetaStopReasonEndTurn, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
	if m.n < len(m.steps) {
		s := m.steps[m.n]
		m.n++
		reply["stop_reason"] = anthropic.BetaStopReasonToolUse
		reply["content"] = []anthropic.BetaContentBlockParamUnion{{OfToolUse: &anthropic.BetaToolUseBlockParam{
			ID: fmt.Sprint("toolu_", m.n), Name: s.tool, Input: json.RawMessage(s.args)}}}
	} else {
		names := map[string]string{}
		var read []string
		for _, msg := range req.Messages {
			var blocks []anthropic.BetaContentBlockParamUnion
			if msg.OfUser != nil {
				blocks = msg.OfUser.Content
			} else if msg.OfAssistant != nil {
				blocks = msg.OfAssistant.Content
			}
			for _, b := range blocks {
				if u := b.OfToolUse; u != nil {
					names[u.ID] = u.Name
				}
				if r := b.OfToolResult; r != nil && len(r.Content) > 0 && r.Content[0].OfText != nil {
					read = append(read, names[r.ToolUseID]+"="+r.Content[0].OfText.Text)
				}
			}
		}
		reply["content"] = []anthropic.BetaContentBlockParamUnion{anthropic.NewBetaTextBlock("I read: " + strings.Join(read, "; "))}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}
