package genkitadapter_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/firebase/genkit/go/ai"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestRestartAndRespondParts pins the parts a Tool makes for
// ai.WithToolRestarts and ai.WithToolResponses: genkit's own, with the
// ticket of an approval interrupt carried in the restarted input.
func TestRestartAndRespondParts(t *testing.T) {
	exec := adapter.NewExecutor(registry.New(), nil)
	defer exec.Close()
	tool, err := genkitadapter.NewTool(addSpec(), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := ai.NewToolRequestPart(&ai.ToolRequest{Name: "add", Ref: "r1", Input: map[string]any{"a": 1, "b": 2}})
	held.Metadata = map[string]any{"interrupt": map[string]any{"kind": "approval_pending", "ticket": "tkt_1", "tool": "add"}, "other": "kept"}

	p := tool.Restart(held, &ai.RestartOptions{ReplaceInput: map[string]any{"a": 5, "b": 5}, ResumedMetadata: map[string]any{"by": "alice"}})
	if p == nil || p.ToolRequest.Name != "add" || p.ToolRequest.Ref != "r1" {
		t.Fatalf("Restart = %+v; want a request of add, ref r1", p)
	}
	wantMeta := map[string]any{"other": "kept", "resumed": map[string]any{"by": "alice"}, "replacedInput": map[string]any{"a": 1, "b": 2}}
	if !reflect.DeepEqual(p.Metadata, wantMeta) {
		t.Errorf("Restart metadata = %v, want %v", p.Metadata, wantMeta)
	}
	in, _ := json.Marshal(p.ToolRequest.Input)
	if want := `{"$agentadapter_resume":{"ticket":"tkt_1","ref":"r1","args":{"a":5,"b":5}}}`; string(in) != want {
		t.Errorf("Restart input = %s, want %s", in, want)
	}
	if held.Metadata["interrupt"] == nil || held.Metadata["resumed"] != nil {
		t.Errorf("Restart changed the interrupted part's metadata: %v", held.Metadata)
	}

	plain := ai.NewToolRequestPart(&ai.ToolRequest{Name: "add", Ref: "r2", Input: map[string]any{"a": 1}})
	if p := tool.Restart(plain, nil); p == nil || p.Metadata["resumed"] != true || !reflect.DeepEqual(p.ToolRequest.Input, plain.ToolRequest.Input) {
		t.Errorf("Restart(other interrupt) = %+v; want the input unchanged, resumed", p)
	}
	if p := tool.Restart(ai.NewTextPart("hi"), nil); p != nil {
		t.Errorf("Restart(text part) = %+v, want nil", p)
	}

	r := tool.Respond(held, map[string]any{"ok": true}, &ai.RespondOptions{Metadata: map[string]any{"by": "bob"}})
	if r == nil || r.ToolResponse.Name != "add" || r.ToolResponse.Ref != "r1" || !reflect.DeepEqual(r.Metadata, map[string]any{"interruptResponse": map[string]any{"by": "bob"}}) {
		t.Errorf("Respond = %+v; want a response of add, ref r1, with the metadata", r)
	}
	if r := tool.Respond(held, "x", nil); r == nil || r.Metadata["interruptResponse"] != true {
		t.Errorf("Respond(nil opts) = %+v; want interruptResponse true", r)
	}
	if r := tool.Respond(nil, "x", nil); r != nil {
		t.Errorf("Respond(nil) = %+v, want nil", r)
	}
}
