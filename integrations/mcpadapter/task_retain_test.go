package mcpadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestExportTasksResultBytesBounded: the finished results a caller's
// tasks keep are bounded in bytes (8 MiB): past it its oldest result is
// dropped, and its tasks/get says so (to its owner only; another caller
// gets what an unknown id gets); a result past the bound alone fails its
// task.
func TestExportTasksResultBytesBounded(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("big", "Answers n MiB of text.", exObject(nil),
		func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			var in struct{ MiB int }
			_ = json.Unmarshal(args, &in)
			return adapter.TextResult(strings.Repeat("x", in.MiB<<20)), nil
		}, nil))
	ex := newExporter(t, reg, nil, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskOptional }}})
	url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
	alice := &rawClient{t: t, url: url, token: "alice", tasks: true}
	bob := &rawClient{t: t, url: url, token: "bob", tasks: true}

	var ids []string
	for range 3 {
		id := alice.call("big", map[string]any{"MiB": 3})["taskId"].(string)
		alice.await(id, "completed")
		ids = append(ids, id)
	}
	_, dropped := alice.rpc("tasks/get", map[string]any{"taskId": ids[0]})
	if dropped == nil || dropped.Code != -32602 || !strings.Contains(dropped.Message, "dropped") {
		t.Errorf("tasks/get of the oldest of 9 MiB of results = %+v, want an error saying it was dropped", dropped)
	}
	for _, id := range ids[1:] {
		if r, err := alice.rpc("tasks/get", map[string]any{"taskId": id}); err != nil || r["status"] != "completed" {
			t.Errorf("a newer result = %v, %+v; want it kept", r["status"], err)
		}
	}
	_, other := bob.rpc("tasks/get", map[string]any{"taskId": ids[0]})
	_, unknown := bob.rpc("tasks/get", map[string]any{"taskId": strings.Repeat("0", 32)})
	if other == nil || unknown == nil || other.Message != unknown.Message {
		t.Errorf("bob's tasks/get of alice's dropped task = %+v, want what an unknown id gets (%+v)", other, unknown)
	}

	id := bob.call("big", map[string]any{"MiB": 9})["taskId"].(string)
	r := bob.await(id, "completed", "failed")
	if e, _ := r["error"].(map[string]any); r["status"] != "failed" || !strings.Contains(e["message"].(string), "bytes") {
		t.Errorf("a 9 MiB result = %v %v, want a failed task saying the result is too large", r["status"], r["error"])
	}
	if r, err := alice.rpc("tasks/get", map[string]any{"taskId": ids[2]}); err != nil || r["status"] != "completed" {
		t.Errorf("bob's oversized result dropped alice's: %v, %+v", r["status"], err)
	}
}
