package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

func add(_ context.Context, in addIn) (int, error) { return in.A + in.B, nil }

// scriptedClient is an OpenAI client whose API is a scripted model in
// process: each request gets the next reply. A real program uses
// openai.NewClient() (OPENAI_API_KEY).
func scriptedClient(replies ...any) (openai.Client, func()) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(replies[min(n, len(replies)-1)])
		n++
	}))
	return openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example")), srv.Close
}

// A Chat Completions conversation: the model calls add, reads 5, answers.
func ExampleToolset_Loop() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two numbers.", add, nil))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	client, done := scriptedClient(completion("", toolCall("call_1", "add", `{"a":2,"b":3}`)), completion("2+3 is 5."))
	defer done()

	conv, err := ts.Loop(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT6Astra,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is 2+3?")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(conv.Messages[2].OfTool.Content.OfString.Value)
	fmt.Println(conv.Completion.Choices[0].Message.Content)
	// Output:
	// 5
	// 2+3 is 5.
}

// A call held for approval stops the loop; once approved, Resume runs it.
func ExampleToolset_Resume() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("delete_file", "Deletes a file.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})) // destructive: held for approval
	port := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	defer exec.Close()
	ts, _ := openaiadapter.New(reg, exec, nil)
	client, done := scriptedClient(completion("", toolCall("call_1", "delete_file", `{"path":"/tmp/old.log"}`)), completion("Deleted."))
	defer done()
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT6Astra,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Clean up /tmp/old.log")}}

	conv, err := ts.Loop(ctx, &client.Chat.Completions, params)
	if !errors.Is(err, openaiadapter.ErrPending) {
		log.Fatal(err)
	}
	h := conv.Held[0]
	fmt.Println("held:", h.Tool, h.Args)
	if err := port.Approve(ctx, h.Ticket, "alice"); err != nil {
		log.Fatal(err)
	}
	conv, err = ts.Resume(ctx, &client.Chat.Completions, conv, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(conv.Completion.Choices[0].Message.Content)
	// Output:
	// held: delete_file {"path":"/tmp/old.log"}
	// Deleted.
}

// A Responses API turn: the function calls' outputs go back as the next
// request's input.
func ExampleToolset_ResponseAnswers() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two numbers.", add, nil))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, _ := openaiadapter.New(reg, exec, &openaiadapter.Options{Strict: true})
	client, done := scriptedClient(response("", functionCall("call_1", "add", `{"a":2,"b":3}`)), response("5"))
	defer done()
	ctx := context.Background()

	resp, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: openai.ChatModelGPT6Astra, Tools: ts.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is 2+3?")}})
	if err != nil {
		log.Fatal(err)
	}
	items, _, err := ts.ResponseAnswers(ctx, resp.Output)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(items[0].OfFunctionCallOutput.Output.OfResponseFunctionCallOutputItemArray[0].OfInputText.Text)
	resp, err = client.Responses.New(ctx, responses.ResponseNewParams{Model: openai.ChatModelGPT6Astra, Tools: ts.ResponseTools(),
		PreviousResponseID: openai.String(resp.ID), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.OutputText())
	// Output:
	// 5
	// 5
}
