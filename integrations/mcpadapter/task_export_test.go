package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// rawClient speaks 2026-07-28 over HTTP by hand, as the draft conformance
// suite does: go-sdk's client keeps no task of a tools/call answer.
type rawClient struct {
	t     *testing.T
	url   string
	token string
	tasks bool // declares the tasks extension
	id    int
	hc    *http.Client // nil: http.DefaultClient
	sid   string       // a 2025-11-25 session (see openSession); "": 2026-07-28
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (c *rawClient) rpc(method string, params map[string]any) (map[string]any, *rpcError) {
	c.t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if c.tasks {
		caps["extensions"] = map[string]any{mcpadapter.TasksExtension: map[string]any{}}
	}
	if params == nil {
		params = map[string]any{}
	}
	if c.sid == "" && method != "initialize" {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "v0"},
			"io.modelcontextprotocol/clientCapabilities": caps,
		}
	} else if method == "initialize" {
		params["protocolVersion"], params["capabilities"] = "2025-11-25", caps
		params["clientInfo"] = map[string]any{"name": "raw", "version": "v0"}
	}
	c.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	req, _ := http.NewRequest("POST", c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid == "" && method != "initialize" {
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	} else if c.sid != "" {
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	req.Header.Set("Mcp-Method", method)
	if n, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	hc := c.hc
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if method == "initialize" {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	data := buf.Bytes()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(line, "data:") && strings.Contains(line, `"id"`) {
				data = []byte(strings.TrimSpace(strings.TrimPrefix(line, "data:")))
			}
		}
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  *rpcError      `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		c.t.Fatalf("%s: HTTP %d, body %q: %v", method, resp.StatusCode, data, err)
	}
	return msg.Result, msg.Error
}

func (c *rawClient) call(name string, args map[string]any) map[string]any {
	c.t.Helper()
	r, e := c.rpc("tools/call", map[string]any{"name": name, "arguments": args})
	if e != nil {
		c.t.Fatalf("tools/call %s: %+v", name, e)
	}
	return r
}

// await polls a task until its status is one of want.
func (c *rawClient) await(id string, want ...string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, e := c.rpc("tasks/get", map[string]any{"taskId": id})
		if e != nil {
			c.t.Fatalf("tasks/get: %+v", e)
		}
		for _, w := range want {
			if r["status"] == w {
				return r
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %v, want %v", id, r["status"], want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type taskEnv struct {
	ex      *mcpadapter.Exporter
	url     string
	ledger  *adapter.MemoryLedger
	release chan struct{} // each receive lets one slow call finish
	started atomic.Int32
	ended   chan error // the ctx error of each slow call
}

func newTaskEnv(t *testing.T, opts *mcpadapter.TaskOptions) *taskEnv {
	t.Helper()
	return newTaskEnvHTTP(t, opts, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
}

// newTaskEnvHTTP is newTaskEnv served with hopts.
func newTaskEnvHTTP(t *testing.T, opts *mcpadapter.TaskOptions, hopts *mcpadapter.HTTPOptions) *taskEnv {
	t.Helper()
	e := &taskEnv{ledger: adapter.NewMemoryLedger(100), release: make(chan struct{}), ended: make(chan error, 64)}
	reg := registry.New()
	reg.MustRegister(
		adapter.MustRawTool("slow", "Waits to be released.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				e.started.Add(1)
				select {
				case <-e.release:
					e.ended <- nil
					return adapter.TextResult("slow done"), nil
				case <-ctx.Done():
					e.ended <- ctx.Err()
					return nil, ctx.Err()
				}
			}, nil),
		adapter.MustRawTool("guarded", "Needs approval.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return adapter.TextResult("guarded done"), nil
			}, nil),
		adapter.MustRawTool("ask", "Asks its client, from its task.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				answers, err := mcpadapter.AskInput(ctx, mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "go on?",
					RequestedSchema: map[string]any{"type": "object"}}})
				if err != nil {
					return nil, err
				}
				r, _ := answers["q"].(*mcp.ElicitResult)
				if r == nil {
					return nil, fmt.Errorf("no answer")
				}
				return adapter.TextResult("answered " + r.Action), nil
			}, nil),
		adapter.MustRawTool("quick", "Answers at once.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return adapter.TextResult("quick done"), nil
			}, nil),
	)
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: e.ledger,
		Approval: adapter.ApprovalOptions{Port: deferred, Policy: func(_ context.Context, c *adapter.ToolCall) bool { return c.Tool == "guarded" }}})
	t.Cleanup(func() { exec.Close() })
	if opts.Support == nil {
		opts.Support = func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			switch spec.Name {
			case "slow", "guarded":
				return mcpadapter.TaskOptional
			}
			return mcpadapter.TaskForbidden
		}
	}
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{Tasks: opts, Approver: deferred})
	e.ex = ex
	e.url = exServeHTTP(t, ex, hopts).URL
	return e
}

func (e *taskEnv) records(t *testing.T, tool string, n int) []adapter.Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var got []adapter.Record
		for _, r := range e.ledger.Records() {
			if r.Tool == tool {
				got = append(got, r)
			}
		}
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestExportTasks(t *testing.T) {
	e := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 250 * time.Millisecond})
	alice := &rawClient{t: t, url: e.url, token: "alice", tasks: true}
	bob := &rawClient{t: t, url: e.url, token: "bob", tasks: true}

	list, lerr := alice.rpc("tools/list", nil)
	if lerr != nil {
		t.Fatal(lerr)
	}
	execution := map[string]any{}
	for _, tool := range list["tools"].([]any) {
		tm := tool.(map[string]any)
		execution[tm["name"].(string)] = tm["execution"]
	}
	want := map[string]any{"slow": map[string]any{"taskSupport": "optional"}, "guarded": map[string]any{"taskSupport": "optional"}, "quick": nil, "ask": nil}
	if fmt.Sprint(execution) != fmt.Sprint(want) {
		t.Errorf("tools/list execution = %v, want %v", execution, want)
	}

	created := alice.call("slow", nil)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || len(id) < 32 || created["status"] != "working" || created["pollIntervalMs"] != float64(250) {
		t.Fatalf("CreateTaskResult = %v", created)
	}
	if _, ok := created["content"]; ok {
		t.Errorf("CreateTaskResult carries content: %v", created)
	}

	t.Run("another identity cannot see it", func(t *testing.T) {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
			_, err := bob.rpc(m, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
			_, unknown := bob.rpc(m, map[string]any{"taskId": strings.Repeat("0", 32), "inputResponses": map[string]any{}})
			if err == nil || err.Code != -32602 || unknown == nil || err.Code != unknown.Code || err.Message != unknown.Message {
				t.Errorf("bob's %s of alice's task = %+v, want what an unknown id gets (%+v)", m, err, unknown)
			}
		}
		if r := alice.await(id, "working"); r["status"] != "working" {
			t.Errorf("after bob's cancel, alice's task is %v", r["status"])
		}
	})

	e.release <- struct{}{}
	<-e.ended
	done := alice.await(id, "completed")
	res, _ := done["result"].(map[string]any)
	if fmt.Sprint(res["content"]) != "[map[text:slow done type:text]]" || done["resultType"] != "complete" {
		t.Errorf("completed task = %v", done)
	}
	if recs := e.records(t, "slow", 1); len(recs) != 1 || recs[0].Outcome != "ok" || recs[0].Subject != "alice" {
		t.Errorf("ledger records of the task = %+v, want one ok record of alice", recs)
	}

	t.Run("cancel ends the call", func(t *testing.T) {
		id := alice.call("slow", nil)["taskId"].(string)
		for e.started.Load() < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		ack, err := alice.rpc("tasks/cancel", map[string]any{"taskId": id})
		if err != nil || ack["resultType"] != "complete" || ack["taskId"] != nil || ack["status"] != nil {
			t.Fatalf("cancel ack = %v, %+v", ack, err)
		}
		select {
		case cerr := <-e.ended:
			if cerr == nil {
				t.Errorf("the cancelled call ran to its end")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the cancelled task's call is still running")
		}
		if r := alice.await(id, "cancelled", "completed", "failed"); r["status"] != "cancelled" {
			t.Errorf("status after cancel = %v", r["status"])
		}
	})

	t.Run("without the extension", func(t *testing.T) {
		plain := &rawClient{t: t, url: e.url, token: "alice"}
		go func() { e.release <- struct{}{} }()
		r := plain.call("slow", nil)
		if r["resultType"] == "task" || fmt.Sprint(r["content"]) != "[map[text:slow done type:text]]" {
			t.Errorf("sync call = %v", r)
		}
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			if _, err := plain.rpc(m, map[string]any{"taskId": id}); err == nil || err.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Errorf("%s without the extension = %+v, want -32021", m, err)
			}
		}
	})

	t.Run("hostile input", func(t *testing.T) {
		for _, p := range []map[string]any{
			{"taskId": strings.Repeat("x", 1<<16)},
			{"taskId": ""},
			{"taskId": 42},
			{"taskId": id, "inputResponses": "not an object"},
		} {
			_, err := bob.rpc("tasks/update", p)
			if err == nil || (err.Code != -32602 && err.Code != -32600) {
				t.Errorf("tasks/update %.60v = %+v, want invalid params", p, err)
			}
		}
		if _, err := alice.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": "x"}); err == nil || err.Code != -32602 {
			t.Errorf("malformed inputResponses = %+v, want -32602", err)
		}
		if _, err := alice.rpc("tasks/result", map[string]any{"taskId": id}); err == nil || err.Code != -32601 {
			t.Errorf("tasks/result (removed) = %+v, want -32601", err)
		}
	})

	t.Run("approval holds the task", func(t *testing.T) {
		id := alice.call("guarded", nil)["taskId"].(string)
		r := alice.await(id, "input_required", "completed", "failed")
		reqs, _ := r["inputRequests"].(map[string]any)
		if r["status"] != "input_required" || len(reqs) != 1 {
			t.Fatalf("held task = %v, want input_required with the approval question", r)
		}
		answers := map[string]any{}
		for k := range reqs {
			answers[k] = map[string]any{"action": "accept", "content": map[string]any{"approve": true}}
		}
		if _, err := bob.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": answers}); err == nil {
			t.Errorf("bob answered alice's approval")
		}
		if ack, err := alice.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": answers}); err != nil || ack["resultType"] != "complete" {
			t.Fatalf("tasks/update = %v, %+v", ack, err)
		}
		done := alice.await(id, "completed", "failed", "cancelled")
		if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:guarded done type:text]]" {
			t.Errorf("approved task = %v", done)
		}
		recs := e.records(t, "guarded", 2)
		if len(recs) != 2 || recs[0].Approval != "pending" || recs[1].Outcome != "ok" {
			t.Errorf("records = %+v, want the held call and the approved one", recs)
		}
	})
}

// TestExportTasksBounded: a caller keeps at most MaxPerCaller tasks,
// running or ended; past it a TaskRequired call is refused with
// run_limit_exceeded and a TaskOptional one runs synchronously; another
// caller is not held back by them.
func TestExportTasksBounded(t *testing.T) {
	e := newTaskEnv(t, &mcpadapter.TaskOptions{MaxPerCaller: 2,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			switch spec.Name {
			case "slow", "guarded":
				return mcpadapter.TaskOptional
			case "quick":
				return mcpadapter.TaskRequired
			}
			return mcpadapter.TaskForbidden
		}})
	alice := &rawClient{t: t, url: e.url, token: "alice", tasks: true}
	bob := &rawClient{t: t, url: e.url, token: "bob", tasks: true}
	first := alice.call("slow", nil)
	_, _ = alice.rpc("tasks/cancel", map[string]any{"taskId": first["taskId"]})
	held := alice.call("guarded", nil) // held for approval: no slow call takes a release
	if held["resultType"] != "task" {
		t.Fatalf("second task refused: %v", held)
	}
	over := alice.call("quick", nil)
	if over["isError"] != true || !strings.Contains(fmt.Sprint(over["_meta"]), "run_limit_exceeded") {
		t.Errorf("a third task of a task-only tool = %v, want run_limit_exceeded", over)
	}
	go func() { e.release <- struct{}{} }()
	if r := alice.call("slow", nil); r["resultType"] == "task" || fmt.Sprint(r["content"]) != "[map[text:slow done type:text]]" {
		t.Errorf("a third call of an optional task tool = %v, want its synchronous result", r)
	}
	if r := bob.call("quick", nil); r["resultType"] != "task" {
		t.Errorf("bob refused for alice's tasks: %v", r)
	}
	_, _ = alice.rpc("tasks/cancel", map[string]any{"taskId": held["taskId"]})
}
