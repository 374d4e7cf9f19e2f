package mcpadapter_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// TestImportTaskOnlyTool calls server-everything's simulate-research-query
// (execution.taskSupport "required"; the TypeScript SDK refuses it without
// a task param) through the executor: it runs as an upstream task, polled
// until it completes, its status reported as progress; a caller giving up
// cancels it.
func TestImportTaskOnlyTool(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	e := newImportEnv(t, nil)
	err := e.m.Connect(context.Background(), mcpadapter.Upstream{
		Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second, Trust: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.reg.Lookup("simulate-research-query"); !ok {
		t.Fatalf("simulate-research-query not imported: %v", regNames(e.reg))
	}

	t.Run("completes", func(t *testing.T) {
		var mu sync.Mutex
		var reports []string
		ctx := adapter.WithProgress(context.Background(), func(p adapter.Progress) {
			mu.Lock()
			reports = append(reports, p.Message)
			mu.Unlock()
		})
		start := time.Now()
		r, aerr := e.call(t, ctx, "simulate-research-query", `{"topic":"golang"}`)
		if aerr != nil {
			t.Fatalf("call: %v (%s)", aerr, aerr.Message)
		}
		if !strings.Contains(r.Text(), "# Research Report: golang") {
			t.Errorf("text = %.200q, want the research report", r.Text())
		}
		if _, ok := r.Meta["io.modelcontextprotocol/related-task"]; ok {
			t.Errorf("the upstream's related-task _meta was relayed: %v", r.Meta)
		}
		if d := time.Since(start); d < 3*time.Second {
			t.Errorf("returned after %v; the task takes four 1s stages", d)
		}
		mu.Lock()
		defer mu.Unlock()
		joined := strings.Join(reports, "\n")
		// Polled at the server's 1s pollInterval, each of the four 1s
		// stages may or may not be seen; its start and its end are.
		for _, want := range []string{"task working: ", "...\ntask completed: "} {
			if !strings.Contains(joined, want) {
				t.Errorf("progress %q missing; got:\n%s", want, joined)
			}
		}
	})

	t.Run("caller gives up", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, aerr := e.call(t, ctx, "simulate-research-query", `{"topic":"rust"}`)
		if aerr == nil || aerr.Kind != adapter.KindTimeout {
			t.Fatalf("err = %v, want a timeout", aerr)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("returned after %v; the caller's deadline was 1.5s", d)
		}
	})
}

// TestImportTasksExtension imports from an export that serves the tasks
// extension (SEP-2663) over the in-memory transport at 2026-07-28: the
// import declares the extension, the upstream answers with a task, the
// call polls it with tasks/get and returns its inlined result; a caller
// giving up cancels the upstream task, whose tool sees its ctx end.
func TestImportTasksExtension(t *testing.T) {
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) { testImportTasksExtension(t, transport) })
	}
}

func testImportTasksExtension(t *testing.T, transport string) {
	// slow runs only as a task: without the extension the call fails.
	up := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired }})
	e := newImportEnv(t, nil)
	srv := mcpadapter.Upstream{Name: "up", Trust: true, URL: up.url, BearerToken: "alice"}
	if transport == "memory" {
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- up.ex.Serve(ctx, st) }()
		t.Cleanup(func() {
			cancel()
			<-served
		})
		srv = mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}
	}
	if err := e.m.Connect(context.Background(), srv); err != nil {
		t.Fatal(err)
	}

	t.Run("completes", func(t *testing.T) {
		var reports atomic.Int32
		pctx := adapter.WithProgress(context.Background(), func(adapter.Progress) { reports.Add(1) })
		go func() {
			for up.started.Load() < 1 {
				time.Sleep(5 * time.Millisecond)
			}
			up.release <- struct{}{}
		}()
		r, aerr := e.call(t, pctx, "slow", `{}`)
		if aerr != nil {
			t.Fatalf("call: %v", aerr)
		}
		if r.Text() != "slow done" {
			t.Errorf("text = %q", r.Text())
		}
		<-up.ended
		if reports.Load() == 0 {
			t.Errorf("no progress reported for the task's status")
		}
		if recs := up.records(t, "slow", 1); len(recs) != 1 || recs[0].Outcome != "ok" {
			t.Errorf("upstream records = %+v, want one", recs)
		}
	})

	t.Run("caller gives up", func(t *testing.T) {
		cctx, ccancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer ccancel()
		_, aerr := e.call(t, cctx, "slow", `{}`)
		if aerr == nil || aerr.Kind != adapter.KindTimeout {
			t.Fatalf("err = %v, want a timeout", aerr)
		}
		select {
		case err := <-up.ended:
			if err == nil {
				t.Errorf("the upstream task ran to its end")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the upstream task was not cancelled")
		}
	})
}

// TestTasksThroughGateway: an Exporter fronting a Manager (the gateway's
// shape) serves an upstream's task-only tool as a task of its own
// (Manager.TaskSupport): the client's task completes with the upstream's
// result, and cancelling it cancels the upstream task.
func TestTasksThroughGateway(t *testing.T) {
	up := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired }})
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: up.url, BearerToken: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := e.m.TaskSupport(mustLookup(t, e, "slow")); got != mcpadapter.TaskRequired {
		t.Fatalf("TaskSupport(slow) = %q, want required (from the upstream's listing)", got)
	}
	gw := newExporter(t, e.reg, e.exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		PollInterval: 20 * time.Millisecond,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			return e.m.TaskSupport(spec)
		}}})
	client := &rawClient{t: t, url: exServeHTTP(t, gw, nil).URL, tasks: true}

	created := client.call("slow", nil)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("through the gateway: %v, want a task", created)
	}
	for up.started.Load() < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	up.release <- struct{}{}
	<-up.ended
	done := client.await(id, "completed", "failed", "cancelled")
	if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:slow done type:text]]" {
		t.Errorf("gateway task = %v", done)
	}

	id = client.call("slow", nil)["taskId"].(string)
	for up.started.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := client.rpc("tasks/cancel", map[string]any{"taskId": id}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-up.ended:
		if err == nil {
			t.Errorf("the upstream task ran to its end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the gateway's task left the upstream task running")
	}
}

// TestTaskInputThroughGateway: an upstream task's question reaches the
// gateway's client as its own task's input_required, and the answer goes
// back upstream, whether the manager takes its servers' elicitations
// (under their policy) or not (the caller, which declared elicitation,
// answers; see TestTaskInputRelayedToCaller).
func TestTaskInputThroughGateway(t *testing.T) {
	for _, relay := range []bool{true, false} {
		t.Run(fmt.Sprintf("elicitation %v", relay), func(t *testing.T) {
			up := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
				Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired }})
			var mopts *mcpadapter.ManagerOptions
			if relay {
				// The policy of the servers' elicitations: no approval asked.
				gexec := adapter.NewExecutor(registry.New(), &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{
					Policy: func(context.Context, *adapter.ToolCall) bool { return false }}})
				t.Cleanup(func() { gexec.Close() })
				mopts = &mcpadapter.ManagerOptions{Executor: gexec, Elicitation: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return nil, fmt.Errorf("not asked directly")
				}}
			}
			e := newImportEnv(t, mopts)
			if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: up.url, BearerToken: "alice"}); err != nil {
				t.Fatal(err)
			}
			gw := newExporter(t, e.reg, e.exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
				PollInterval: 20 * time.Millisecond,
				Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
					return e.m.TaskSupport(spec)
				}}})
			client := &rawClient{t: t, url: exServeHTTP(t, gw, nil).URL, tasks: true}
			id := client.call("ask", nil)["taskId"].(string)
			r := client.await(id, "input_required", "completed", "failed")
			reqs, _ := r["inputRequests"].(map[string]any)
			if r["status"] != "input_required" || reqs["q"] == nil {
				t.Fatalf("gateway task = %v, want the upstream's question", r)
			}
			ack, err := client.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{}}}})
			if err != nil || ack["resultType"] != "complete" {
				t.Fatalf("tasks/update = %v, %+v", ack, err)
			}
			done := client.await(id, "completed", "failed", "cancelled")
			if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:answered accept type:text]]" {
				t.Errorf("gateway task = %v", done)
			}
		})
	}
}

func mustLookup(t *testing.T, e *importEnv, name string) *adapter.Spec {
	t.Helper()
	spec, ok := e.reg.Lookup(name)
	if !ok {
		t.Fatalf("%s not imported", name)
	}
	return spec
}
