package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// newElicitingGateway is newRelayGateway over a Manager that takes its
// servers' elicitations (ManagerOptions.Elicitation, under a policy that
// asks no approval): an upstream task's questions are put to the
// gateway's task caller through AskInput, on the governed path.
func newElicitingGateway(t *testing.T, url string) *rawClient {
	t.Helper()
	gexec := adapter.NewExecutor(registry.New(), &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{
		Policy: func(context.Context, *adapter.ToolCall) bool { return false }}})
	t.Cleanup(func() { gexec.Close() })
	e := newImportEnv(t, &mcpadapter.ManagerOptions{Executor: gexec, Elicitation: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, fmt.Errorf("not asked directly")
	}})
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: url, BearerToken: "alice"}); err != nil {
		t.Fatal(err)
	}
	gw := newExporter(t, e.reg, e.exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		PollInterval: 20 * time.Millisecond,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			return e.m.TaskSupport(spec)
		}}})
	return &rawClient{t: t, url: exServeHTTP(t, gw, nil).URL, tasks: true}
}

// TestTaskInputElicitationBounded: with ManagerOptions.Elicitation set,
// an upstream task's questions keep the relay's bounds too: 1,000
// questions at once, and a ninth round of new question ids, end the
// gateway's task with a tool error, and the upstream's task is cancelled,
// not left waiting.
func TestTaskInputElicitationBounded(t *testing.T) {
	ended := make(chan error, 4)
	url := newRelayUpstream(t, func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired },
		adapter.MustRawTool("many", "Asks 1,000 questions at once.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				q := mcp.InputRequestMap{}
				for n := range 1000 {
					q[fmt.Sprintf("q%d", n)] = &mcp.ElicitParams{Message: "ok?", RequestedSchema: map[string]any{"type": "object"}}
				}
				_, err := mcpadapter.AskInput(ctx, q)
				ended <- err
				return nil, err
			}, nil),
		adapter.MustRawTool("endless", "Asks one question after another.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				for n := 0; ; n++ {
					if _, err := mcpadapter.AskInput(ctx, mcp.InputRequestMap{fmt.Sprintf("q%d", n): &mcp.ElicitParams{
						Message: "again?", RequestedSchema: map[string]any{"type": "object"}}}); err != nil {
						ended <- err
						return nil, err
					}
				}
			}, nil))
	client := newElicitingGateway(t, url)
	upstreamCancelled := func(what string) {
		t.Helper()
		select {
		case err := <-ended:
			if err == nil {
				t.Errorf("%s: the upstream's question was answered", what)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: the upstream's task was left waiting", what)
		}
	}

	id := client.call("many", nil)["taskId"].(string)
	r := client.await(id, "completed", "failed", "cancelled", "input_required")
	if res, _ := r["result"].(map[string]any); r["status"] != "completed" || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "1000 questions") {
		t.Errorf("1,000 questions: gateway task %v %v, want a tool error", r["status"], r["result"])
	}
	upstreamCancelled("1,000 questions")

	r = answerEveryRound(t, client, client.call("endless", nil)["taskId"].(string))
	if res, _ := r["result"].(map[string]any); r["status"] != "completed" || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "more than 8 times") {
		t.Errorf("a ninth round: %v, want a tool error", r)
	}
	upstreamCancelled("rounds")
}

// TestTaskPendingBounded: a task's open questions are bounded (1 MiB of
// JSON at once) and counted in the bytes a caller's tasks keep (8 MiB):
// past either AskInput fails with a typed error and the task ends; a
// cancelled task's questions free their bytes.
func TestTaskPendingBounded(t *testing.T) {
	ended := make(chan error, 16)
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("big", "Asks a question of n bytes.", exObject(map[string]*jsonschema.Schema{"n": {Type: "integer"}}, "n"),
		func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var in struct{ N int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			_, err := mcpadapter.AskInput(ctx, mcp.InputRequestMap{"q": &mcp.ElicitParams{
				Message: strings.Repeat("x", in.N), RequestedSchema: map[string]any{"type": "object"}}})
			if err == nil {
				return adapter.TextResult("answered"), nil
			}
			ended <- err
			return nil, err
		}, nil))
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired }}})
	client := &rawClient{t: t, url: exServeHTTP(t, ex, nil).URL, tasks: true}
	refused := func(what, id, want string) {
		t.Helper()
		r := client.await(id, "completed", "failed", "cancelled", "input_required")
		if res, _ := r["result"].(map[string]any); r["status"] != "completed" || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), want) {
			t.Errorf("%s: task %v, want a tool error saying %q", what, r["status"], want)
		}
		select {
		case err := <-ended:
			var ae *adapter.Error
			if !errors.As(err, &ae) || ae.Kind != adapter.KindRunLimitExceeded {
				t.Errorf("%s: AskInput = %v, want run_limit_exceeded", what, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: the tool's AskInput did not return", what)
		}
	}

	refused("2 MiB at once", client.call("big", map[string]any{"n": 2 << 20})["taskId"].(string), "exceed the 1048576 bytes")

	// Eight questions of 960 KiB fit in a caller's 8 MiB; a ninth does not.
	var open []string
	for range 8 {
		id := client.call("big", map[string]any{"n": 960 << 10})["taskId"].(string)
		if r := client.await(id, "input_required", "completed", "failed"); r["status"] != "input_required" {
			t.Fatalf("task %d: %v, want input_required", len(open), r["status"])
		}
		open = append(open, id)
	}
	refused("a ninth", client.call("big", map[string]any{"n": 960 << 10})["taskId"].(string), "do not fit")

	// Cancelling one frees its bytes: the next fits.
	if _, err := client.rpc("tasks/cancel", map[string]any{"taskId": open[0]}); err != nil {
		t.Fatal(err)
	}
	<-ended
	id := client.call("big", map[string]any{"n": 960 << 10})["taskId"].(string)
	if r := client.await(id, "input_required", "completed", "failed"); r["status"] != "input_required" {
		t.Errorf("after a cancel: %v, want input_required", r["status"])
	}
	for _, id := range append(open[1:], id) {
		if _, err := client.rpc("tasks/cancel", map[string]any{"taskId": id}); err != nil {
			t.Fatal(err)
		}
	}
}
