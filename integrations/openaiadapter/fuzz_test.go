package openaiadapter_test

import (
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// FuzzChatAnswers: whatever a model sends as a call's name and arguments,
// ChatAnswers answers the call once, with no fault and no panic.
func FuzzChatAnswers(f *testing.F) {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two numbers.", add, nil))
	exec := adapter.NewExecutor(reg, nil)
	f.Cleanup(func() { exec.Close() })
	ts, err := openaiadapter.New(reg, exec, &openaiadapter.Options{Strict: true})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][2]string{{"add", `{"a":1,"b":2}`}, {"add", `{"a":null}`}, {"add", `{`}, {"", ""}, {"add", `null`},
		{"nope", `{}`}, {"add", `{"$agentadapter_resume":{"ticket":"tkt_x","args":{}}}`}, {"add", "\x00\xff"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		msgs, held, err := ts.ChatAnswers(bg, openai.ChatCompletionMessage{ToolCalls: []openai.ChatCompletionMessageToolCallUnion{toolCall("c1", name, args)}})
		if err != nil || len(held) != 0 || len(msgs) != 1 || msgs[0].OfTool == nil || msgs[0].OfTool.ToolCallID != "c1" {
			t.Fatalf("ChatAnswers(%q, %q) = %d messages, held %v, %v", name, args, len(msgs), held, err)
		}
	})
}
