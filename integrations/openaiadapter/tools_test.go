package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"what to look for"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many results"`
}

// searchSpec echoes its arguments, so that a test sees what the executor
// passed; limit defaults to 5 and query has a minimum length.
func searchSpec(t *testing.T) *adapter.Spec {
	t.Helper()
	in, err := jsonschemaFor()
	if err != nil {
		t.Fatal(err)
	}
	return adapter.MustTool("search", "Searches the notes.", func(_ context.Context, in searchIn) (string, error) {
		b, _ := json.Marshal(in)
		return string(b), nil
	}, &adapter.ToolOptions{Output: adapter.OutputText, InputSchema: in, Annotations: adapter.Annotations{ReadOnly: true}})
}

func jsonschemaFor() (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"query":{"type":"string","description":"what to look for","minLength":2},
		"limit":{"type":"integer","description":"how many results","default":5}},
		"required":["query"],"additionalProperties":false}`), &s)
	return &s, err
}

// TestDefinitions: without Strict the tools carry the spec's schema as is,
// in both APIs' wire forms, strict false (the Responses default is true).
func TestDefinitions(t *testing.T) {
	spec := searchSpec(t)
	reg := registry.New()
	reg.MustRegister(spec)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := adapter.SchemaMap(spec.InputSchema)
	chat, resp := wire(t, ts)
	if diff := cmp.Diff(map[string]any{"type": "function", "function": map[string]any{"name": "search",
		"description": "Searches the notes.", "parameters": want, "strict": false}}, chat); diff != "" {
		t.Errorf("chat tool (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": "function", "name": "search", "description": "Searches the notes.",
		"parameters": want, "strict": false}, resp); diff != "" {
		t.Errorf("response tool (-want +got):\n%s", diff)
	}
	if len(ts.Issues()) != 0 {
		t.Errorf("issues without strict: %v", ts.Issues())
	}
}

// wire returns the first chat and response tools as the API receives them.
func wire(t *testing.T, ts *openaiadapter.Toolset) (chat, resp map[string]any) {
	t.Helper()
	for _, v := range []struct {
		tool any
		dst  *map[string]any
	}{{ts.ChatTools()[0], &chat}, {ts.ResponseTools()[0], &resp}} {
		b, err := json.Marshal(v.tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v.dst); err != nil {
			t.Fatal(err)
		}
	}
	return chat, resp
}

// TestStrict: with Strict the tools are in strict form, what strict mode
// drops is reported, and a null the model sends for the optional limit
// reaches the tool as omitted, so that its default applies.
func TestStrict(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(searchSpec(t))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, &openaiadapter.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	chat, resp := wire(t, ts)
	params := chat["function"].(map[string]any)["parameters"].(map[string]any)
	if chat["function"].(map[string]any)["strict"] != true || resp["strict"] != true ||
		params["additionalProperties"] != false || len(params["required"].([]any)) != 2 {
		t.Errorf("not strict: %v / %v", chat, resp)
	}
	if !cmp.Equal(resp["parameters"], params) {
		t.Errorf("the APIs got different parameters: %v, %v", resp["parameters"], params)
	}
	var dropped []string
	for _, is := range ts.Issues() {
		if is.Tool != "search" || is.Severity != kit.SeverityWarning {
			t.Errorf("issue %v", is)
		}
		dropped = append(dropped, is.Keyword)
	}
	if !strings.Contains(strings.Join(dropped, ","), "minLength") || !strings.Contains(strings.Join(dropped, ","), "default") {
		t.Errorf("issues %v, want minLength and default reported", ts.Issues())
	}
	api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{toolCall("c1", "search", `{"query":"go","limit":null}`),
		toolCall("c2", "search", `{"query":"g","limit":null}`)}))
	client := api.client()
	if _, err := ts.Loop(bg, &client.Chat.Completions, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("find")}); err != nil {
		t.Fatal(err)
	}
	if read, _ := api.requests()[1].toolText("c1"); read != `{"query":"go","limit":5}` {
		t.Errorf("the tool got %s, want limit 5 (its default)", read)
	}
	// The executor still enforces what the model no longer sees.
	if read, _ := api.requests()[1].toolText("c2"); payloadKind(read) != string(adapter.KindArgsInvalid) {
		t.Errorf("a one-letter query read %s, want args_invalid", read)
	}
}

// TestFilter: a tool outside the filter, or exported to another
// integration only, is neither offered nor run: it reads not_found.
func TestFilter(t *testing.T) {
	reg := registry.New()
	other := searchSpec(t)
	other.Name, other.Targets = "eino_only", []string{adapter.TargetEino}
	reg.MustRegister(searchSpec(t), other)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ts.ChatTools()); n != 1 {
		t.Errorf("%d tools offered, want 1", n)
	}
	msgs, held, err := ts.ChatAnswers(bg, openai.ChatCompletionMessage{ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
		toolCall("c1", "eino_only", `{"query":"go"}`)}})
	if err != nil || len(held) != 0 || len(msgs) != 1 {
		t.Fatalf("ChatAnswers = %d, %v, %v", len(msgs), held, err)
	}
	if got := msgs[0].OfTool.Content.OfString.Value; payloadKind(got) != string(adapter.KindNotFound) {
		t.Errorf("eino_only read %q, want not_found", got)
	}
}

// TestNilArguments: constructors and loops given nothing report errors.
func TestNilArguments(t *testing.T) {
	reg := registry.New()
	if _, err := openaiadapter.New(reg, nil, nil); !errors.Is(err, kit.ErrNilExecutor) {
		t.Errorf("New(nil executor) = %v", err)
	}
	if _, err := openaiadapter.New(nil, adapter.NewExecutor(reg, nil), nil); !errors.Is(err, kit.ErrNilRegistry) {
		t.Errorf("New(nil registry) = %v", err)
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, _ := openaiadapter.New(reg, exec, nil)
	if _, err := ts.Loop(bg, nil, openai.ChatCompletionNewParams{}); err == nil {
		t.Error("Loop with no service: no error")
	}
	if _, err := ts.Resume(bg, nil, nil, openai.ChatCompletionNewParams{}); err == nil {
		t.Error("Resume of no conversation: no error")
	}
	if items, held, err := ts.ResponseAnswers(bg, nil); len(items)+len(held) != 0 || err != nil {
		t.Errorf("ResponseAnswers(nil) = %v, %v, %v", items, held, err)
	}
	var _ []responses.ToolUnionParam = ts.ResponseTools()
}

// TestAPIError: a model request the API fails ends the loop with the
// SDK's error and the conversation so far.
func TestAPIError(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(searchSpec(t))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, _ := openaiadapter.New(reg, exec, nil)
	api := newFakeAPI(t, func(n int, _ wireRequest) any {
		if n == 0 {
			return completion("", toolCall("c1", "search", `{"query":"go"}`))
		}
		return nil // a 500
	})
	client := api.client()
	conv, err := ts.Loop(bg, &client.Chat.Completions, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("find")})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Fatalf("Loop = %v, want the API's 500", err)
	}
	if len(conv.Messages) != 3 || conv.Messages[2].OfTool == nil {
		t.Errorf("the conversation so far has %d messages, want user, assistant, tool", len(conv.Messages))
	}
}
