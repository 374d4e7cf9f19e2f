package openaiadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// everything imports the real npm server-everything into a registry,
// its sampling requests answered by sampler when set, and waits for want.
func everything(t *testing.T, sampler kit.Sampler, want ...string) (*registry.Registry, *adapter.Executor, *adapter.MemoryLedger) {
	t.Helper()
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	reg := registry.New()
	led := adapter.NewMemoryLedger(1000)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	opts := &mcpadapter.ManagerOptions{Executor: exec}
	if sampler != nil {
		opts.Sampler = mcpadapter.Sample(sampler)
	}
	mgr := mcpadapter.NewManager(reg, opts)
	t.Cleanup(func() {
		mgr.Close()
		exec.Close()
	})
	ctx := context.Background()
	if err := mgr.Connect(ctx, mcpadapter.Server{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute, Trust: true}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		missing := ""
		for _, name := range want {
			if _, ok := reg.Lookup(name); !ok {
				missing = name
			}
		}
		if missing == "" {
			return reg, exec, led
		}
		if i == 600 {
			var names []string
			for s := range reg.List(registry.Filter{}) {
				names = append(names, s.Name)
			}
			t.Fatalf("%s never appeared; the server lists %v", missing, names)
		}
		mgr.Refresh(ctx)
		time.Sleep(50 * time.Millisecond)
	}
}

// everythingTurn is one model turn calling server-everything's text tool,
// its image tool and a tool that fails on the server.
var everythingTurn = []struct{ id, tool, args string }{
	{"c_echo", "echo", `{"message":"hello from openai"}`},
	{"c_image", "get-tiny-image", `{}`},
	{"c_fail", "get-resource-reference", `{"resourceType":"Text","resourceId":-1}`},
}

// TestServerEverythingChat: a Chat Completions loop calls the real
// server's echo, image and failing tools in one turn; the model's next
// request carries each result: the echo, the image's description beside
// its text (tool messages take no media), the failure's tool_error payload.
func TestServerEverythingChat(t *testing.T) {
	reg, exec, _ := everything(t, nil, "echo", "get-tiny-image", "get-resource-reference")
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, func(n int, r wireRequest) any {
		if n > 0 {
			return completion("done")
		}
		var calls []openai.ChatCompletionMessageToolCallUnion
		for _, c := range everythingTurn {
			calls = append(calls, toolCall(c.id, c.tool, c.args))
		}
		return completion("", calls...)
	})
	client := api.client()
	conv, err := ts.Loop(bg, &client.Chat.Completions, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("try the tools")})
	if err != nil {
		t.Fatal(err)
	}
	if got := conv.Completion.Choices[0].Message.Content; got != "done" {
		t.Errorf("final answer %q", got)
	}
	reqs := api.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !toolOffered(reqs[0], "get-tiny-image") {
		t.Errorf("the first request does not offer get-tiny-image: %.300s", reqs[0].Raw)
	}
	echo, _ := reqs[1].toolText("c_echo")
	image, _ := reqs[1].toolText("c_image")
	fail, _ := reqs[1].toolText("c_fail")
	if !strings.Contains(echo, "hello from openai") {
		t.Errorf("echo read %q", echo)
	}
	if !strings.Contains(image, "[image (image/png, ") {
		t.Errorf("the image tool read %q, want the image's description", image)
	}
	if payloadKind(fail) != string(adapter.KindToolError) || !strings.Contains(fail, "resourceId") {
		t.Errorf("the failing tool read %q, want its tool_error", fail)
	}
}

func toolOffered(r wireRequest, name string) bool {
	for _, raw := range r.Tools {
		var tool struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &tool) == nil && (tool.Name == name || tool.Function.Name == name) {
			return true
		}
	}
	return false
}

// TestServerEverythingResponses: the same turn through the Responses API
// reaches the model with the image as an input_image part, a PNG data URL.
func TestServerEverythingResponses(t *testing.T) {
	reg, exec, _ := everything(t, nil, "echo", "get-tiny-image", "get-resource-reference")
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, func(n int, r wireRequest) any {
		if n > 0 {
			return response("done")
		}
		var calls []responses.ResponseFunctionToolCall
		for _, c := range everythingTurn {
			calls = append(calls, functionCall(c.id, c.tool, c.args))
		}
		return response("", calls...)
	})
	if _, held, err := responseLoop(bg, ts, api.client(), "try the tools"); err != nil || held != nil {
		t.Fatalf("the loop ended with %v, held %v", err, held)
	}
	reqs := api.requests()
	if len(reqs) != 2 || reqs[1].PreviousResponseID != "resp_test" {
		t.Fatalf("%d requests; the second follows %q", len(reqs), reqs[len(reqs)-1].PreviousResponseID)
	}
	if !toolOffered(reqs[0], "echo") {
		t.Errorf("the first request does not offer echo: %.300s", reqs[0].Raw)
	}
	outs := reqs[1].outputs(t)
	if got := outs["c_echo"].text(t); !strings.Contains(got, "hello from openai") {
		t.Errorf("echo read %q", got)
	}
	var image bool
	for _, p := range outs["c_image"].parts(t) {
		image = image || (p.Type == "input_image" && strings.HasPrefix(p.ImageURL, "data:image/png;base64,iVBOR"))
	}
	if !image {
		t.Errorf("the image tool's output has no PNG input_image: %s", outs["c_image"].Output)
	}
	if got := outs["c_fail"].text(t); payloadKind(got) != string(adapter.KindToolError) {
		t.Errorf("the failing tool read %q, want its tool_error", got)
	}
}

// TestSamplerServerEverything: server-everything's trigger-sampling-request
// is answered through Sampler by the model behind the (fake) API, which
// receives the server's system prompt, prompt and settings.
func TestSamplerServerEverything(t *testing.T) {
	api := newFakeAPI(t, func(int, wireRequest) any {
		c := completion("scripted sampling answer")
		c.Model = "gpt-sampled"
		return c
	})
	client := api.client()
	reg, exec, led := everything(t, openaiadapter.Sampler(&client.Chat.Completions, "gpt-test"), "trigger-sampling-request")
	_ = reg
	res, err := exec.Call(bg, "trigger-sampling-request", json.RawMessage(`{"prompt":"capital of France?","maxTokens":64}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text(), "scripted sampling answer") {
		t.Errorf("the tool's result lacks the model's text: %s", res.Text())
	}
	reqs := api.requests()
	if len(reqs) != 1 {
		t.Fatalf("the model was asked %d times", len(reqs))
	}
	r := reqs[0]
	if r.Model != "gpt-test" || r.MaxCompletionTokens != 64 || len(r.Messages) != 2 || r.Messages[0].Role != "system" ||
		r.Messages[1].Role != "user" || !strings.Contains(r.Messages[1].text(), "capital of France?") || len(r.Tools) != 0 {
		t.Errorf("the model got %s", r.Raw)
	}
	exec.Flush(bg)
	var sampled int
	for _, rec := range led.Records() {
		if rec.Tool == mcpadapter.SamplingTool && rec.Outcome == adapter.OutcomeOK {
			sampled++
		}
	}
	if sampled != 1 {
		t.Errorf("%d sampling records in the ledger, want 1", sampled)
	}
}
