package mcpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// everything connects server-everything over stdio with opts (whose
// Executor is set to one over the returned registry, recording into the
// returned ledger) and waits for tools, which it registers only after
// initialization and only for the capabilities the client declared.
func everything(t *testing.T, opts *mcpadapter.ManagerOptions, eopts *adapter.ExecutorOptions, tools ...string) (*adapter.Executor, *mcpadapter.Manager, *adapter.MemoryLedger) {
	t.Helper()
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	reg := registry.New()
	led := adapter.NewMemoryLedger(1000)
	if eopts == nil {
		eopts = &adapter.ExecutorOptions{}
	}
	eopts.Ledger = led
	exec := adapter.NewExecutor(reg, eopts)
	opts.Executor = exec
	m := mcpadapter.NewManager(reg, opts)
	t.Cleanup(func() {
		m.Close()
		exec.Close()
	})
	err := m.Connect(context.Background(), mcpadapter.Upstream{
		Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second, Trust: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitForTools(t, m, reg, tools...)
	return exec, m, led
}

// waitForTools waits until the tools are imported: server-everything adds
// its capability-dependent tools after initialization, and the manager
// imports them on notifications/tools/list_changed.
func waitForTools(t *testing.T, m *mcpadapter.Manager, reg *registry.Registry, tools ...string) {
	t.Helper()
	for range 600 {
		missing := slices.DeleteFunc(slices.Clone(tools), func(n string) bool { _, ok := reg.Lookup(n); return ok })
		if len(missing) == 0 {
			return
		}
		m.Refresh(context.Background())
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("tools %v never appeared; have %v", tools, regNames(reg))
}

func records(t *testing.T, exec *adapter.Executor, led *adapter.MemoryLedger, tool string) []adapter.Record {
	t.Helper()
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []adapter.Record
	for _, r := range led.Records() {
		if r.Tool == tool {
			out = append(out, r)
		}
	}
	return out
}

func TestEverythingSampling(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.CreateMessageParams
	sampler := func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "scripted reply 42"}, Model: "scripted"}, nil
	}
	t.Run("Answered", func(t *testing.T) {
		exec, _, led := everything(t, &mcpadapter.ManagerOptions{Sampler: sampler}, nil, "trigger-sampling-request")
		res, err := exec.Call(context.Background(), "trigger-sampling-request", json.RawMessage(`{"prompt":"hello there","maxTokens":50}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), "scripted reply 42") {
			t.Errorf("the tool's result does not carry the model's text: %q", res.Text())
		}
		mu.Lock()
		p := got[len(got)-1]
		mu.Unlock()
		if p.SystemPrompt != "You are a helpful test server." || p.MaxTokens != 50 || p.Temperature != 0.7 {
			t.Errorf("sampler got %+v", p)
		}
		if tc, ok := p.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "hello there") {
			t.Errorf("sampler got message %+v", p.Messages[0])
		}
		recs := records(t, exec, led, mcpadapter.SamplingTool)
		if len(recs) != 1 || recs[0].Outcome != adapter.OutcomeOK || recs[0].Source != "mcp:everything" || !strings.Contains(string(recs[0].Args), "hello there") {
			t.Errorf("ledger records of sampling: %+v", recs)
		}
	})
	t.Run("DeniedByPolicy", func(t *testing.T) {
		// An approval rule applies to sampling like to any call: denied, the
		// model is never asked and the server gets an error.
		mu.Lock()
		before := len(got)
		mu.Unlock()
		deny := adapter.ApprovalFunc(func(ctx context.Context, req *adapter.ApprovalRequest) (adapter.Decision, error) {
			if req.Tool != mcpadapter.SamplingTool {
				return adapter.Decision{Verdict: adapter.VerdictApproved}, nil
			}
			return adapter.Decision{Verdict: adapter.VerdictDenied, Reason: "no sampling today", Approver: "policy"}, nil
		})
		eopts := &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deny, Policy: adapter.ApproveNever,
			Tools: map[string]adapter.ApprovalPolicy{mcpadapter.SamplingTool: adapter.ApproveAlways}}}
		exec, _, led := everything(t, &mcpadapter.ManagerOptions{Sampler: sampler}, eopts, "trigger-sampling-request")
		_, err := exec.Call(context.Background(), "trigger-sampling-request", json.RawMessage(`{"prompt":"secret plan"}`))
		if err == nil {
			t.Fatal("the tool succeeded although sampling was denied")
		}
		mu.Lock()
		after := len(got)
		mu.Unlock()
		if after != before {
			t.Error("the model was asked although the policy denied sampling")
		}
		recs := records(t, exec, led, mcpadapter.SamplingTool)
		if len(recs) != 1 || recs[0].Outcome != string(adapter.KindApprovalDenied) || recs[0].Approver != "policy" {
			t.Errorf("ledger records of the denied sampling: %+v", recs)
		}
	})
}

func TestEverythingElicitation(t *testing.T) {
	type answer struct {
		res *mcp.ElicitResult
		err error
	}
	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	next := answer{}
	port := func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, p)
		a := next
		mu.Unlock()
		if a.res == nil && a.err == nil {
			<-ctx.Done() // nobody answers
			return nil, ctx.Err()
		}
		if server != "everything" {
			t.Errorf("port asked for server %q", server)
		}
		return a.res, a.err
	}
	set := func(a answer) {
		mu.Lock()
		next = a
		mu.Unlock()
	}
	exec, _, led := everything(t, &mcpadapter.ManagerOptions{Elicitation: port, ElicitationTimeout: time.Second},
		nil, "trigger-elicitation-request", "trigger-url-elicitation")
	ctx := context.Background()

	set(answer{res: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "integer": 7}}})
	res, err := exec.Call(ctx, "trigger-elicitation-request", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	// The answer reaches the server, with the schema's defaults filled in
	// for what the user left out (SEP-1034).
	for _, want := range []string{"Ada Lovelace", "7", "It was a dark and stormy night.", "3.14"} {
		if !strings.Contains(res.Text(), want) {
			t.Errorf("accepted result lacks %q: %s", want, res.Text())
		}
	}
	mu.Lock()
	p := asked[len(asked)-1]
	mu.Unlock()
	if p.Message != "Please provide inputs for the following fields:" || p.RequestedSchema == nil {
		t.Errorf("port got %+v", p)
	}

	set(answer{res: &mcp.ElicitResult{Action: "decline"}})
	res, err = exec.Call(ctx, "trigger-elicitation-request", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(res.Text(), "declined") {
		t.Errorf("declined: %v, %v", res, err)
	}

	set(answer{}) // the port never answers: the timeout cancels
	res, err = exec.Call(ctx, "trigger-elicitation-request", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(res.Text(), "cancelled") {
		t.Errorf("timed out: %v, %v", res, err)
	}

	set(answer{res: &mcp.ElicitResult{Action: "bogus"}}) // a broken port is an error, not an accept
	if _, err = exec.Call(ctx, "trigger-elicitation-request", json.RawMessage(`{}`)); err == nil {
		t.Error("an invalid action was passed on as an answer")
	}

	set(answer{res: &mcp.ElicitResult{Action: "accept"}})
	res, err = exec.Call(ctx, "trigger-url-elicitation", json.RawMessage(`{"url":"https://example.com/consent"}`))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	p = asked[len(asked)-1]
	mu.Unlock()
	if p.Mode != "url" || p.URL != "https://example.com/consent" || !strings.Contains(res.Text(), "completed") {
		t.Errorf("URL elicitation: port got %+v, result %q", p, res.Text())
	}

	recs := records(t, exec, led, mcpadapter.ElicitationTool)
	var outcomes []string
	for _, r := range recs {
		outcomes = append(outcomes, r.Outcome)
	}
	want := []string{"ok", "ok", "timeout", "tool_error", "ok"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("ledger outcomes of elicitations = %v, want %v", outcomes, want)
	}
}

func TestEverythingRoots(t *testing.T) {
	opts := &mcpadapter.ManagerOptions{Roots: []*mcp.Root{{URI: "file:///work/project-a", Name: "project-a"}}}
	exec, m, _ := everything(t, opts, nil, "get-roots-list")
	ctx := context.Background()
	res, err := exec.Call(ctx, "get-roots-list", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text(), "file:///work/project-a") || !strings.Contains(res.Text(), "project-a") {
		t.Fatalf("the server does not see the configured root: %s", res.Text())
	}
	// Changing the roots notifies the server (roots/list_changed), which
	// asks again.
	m.SetRoots(&mcp.Root{URI: "file:///work/project-b", Name: "project-b"})
	for range 200 {
		res, err = exec.Call(ctx, "get-roots-list", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text(), "project-b") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(res.Text(), "file:///work/project-b") || strings.Contains(res.Text(), "project-a") {
		t.Errorf("after SetRoots the server sees: %s", res.Text())
	}
}

func TestPromptElicitation(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "description": "your name"},
			"age":   map[string]any{"type": "integer", "default": 30},
			"color": map[string]any{"type": "string", "enum": []any{"red", "blue"}},
			"ok":    map[string]any{"type": "boolean"},
		},
		"required": []any{"name", "color"},
	}
	tests := []struct {
		name, input string
		want        *mcp.ElicitResult
	}{
		// Fields come alphabetically: age, color, name, ok. Bad input is
		// asked again; an empty line keeps the default or skips the field.
		{"Accept", "abc\n\ngreen\nblue\n\nAda\nyes\ntrue\n",
			&mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue", "name": "Ada", "ok": true}}},
		{"Decline", "5\n!decline\n", &mcp.ElicitResult{Action: "decline"}},
		{"Cancel", "!cancel\n", &mcp.ElicitResult{Action: "cancel"}},
		{"EOF", "5\n", &mcp.ElicitResult{Action: "cancel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			port := mcpadapter.PromptElicitation(strings.NewReader(tt.input), &out)
			got, err := port(context.Background(), "srv", &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: schema})
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Errorf("answer = %s, want %s\nprompt:\n%s", gj, wj, out.String())
			}
			if !strings.Contains(out.String(), "srv asks: Who are you?") || !strings.Contains(out.String(), "default 30") ||
				(tt.name == "Accept" && !strings.Contains(out.String(), "[red|blue]")) {
				t.Errorf("prompt lacks the message, choices or default:\n%s", out.String())
			}
		})
	}
	t.Run("ContextEnds", func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		port := mcpadapter.PromptElicitation(r, io.Discard)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := port(ctx, "srv", &mcp.ElicitParams{Message: "?", RequestedSchema: schema})
		if err != nil || got.Action != "cancel" {
			t.Errorf("with ctx done: %+v, %v", got, err)
		}
	})
}
