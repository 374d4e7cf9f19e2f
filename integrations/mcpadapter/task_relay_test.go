package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// newRelayUpstream serves specs over HTTP as tasks by support, as an
// upstream of the gateway, and returns its URL.
func newRelayUpstream(t *testing.T, support func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport, specs ...*adapter.Spec) string {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(specs...)
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond, Support: support}})
	return exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
}

// newRelayGateway fronts the upstream at url with an Exporter over a
// Manager that takes no elicitation (as `agentadapter serve`), its tools
// as tasks as the upstream declares them.
func newRelayGateway(t *testing.T, url string) (*importEnv, *rawClient) {
	t.Helper()
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: url, BearerToken: "alice"}); err != nil {
		t.Fatal(err)
	}
	gw := newExporter(t, e.reg, e.exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		PollInterval: 20 * time.Millisecond,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			return e.m.TaskSupport(spec)
		}}})
	return e, &rawClient{t: t, url: exServeHTTP(t, gw, nil).URL, tasks: true}
}

func keysOf(m map[string]any) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// answerEveryRound accepts every question of the gateway task id, round
// after round, until the task is no longer input_required, and returns
// its last tasks/get; past nine rounds the relay's bound failed.
func answerEveryRound(t *testing.T, client *rawClient, id string) map[string]any {
	t.Helper()
	for n := 0; ; n++ {
		r := client.await(id, "input_required", "completed", "failed", "cancelled")
		if r["status"] != "input_required" {
			return r
		}
		if n > 8 {
			t.Fatalf("round %d still relayed: %v", n+1, r)
		}
		reqs, _ := r["inputRequests"].(map[string]any)
		for k := range reqs {
			if _, err := client.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
				k: map[string]any{"action": "accept", "content": map[string]any{}}}}); err != nil {
				t.Fatal(err)
			}
		}
		for { // until the upstream asks its next question
			if g, _ := client.rpc("tasks/get", map[string]any{"taskId": id}); g["status"] != "working" {
				if reqs2, _ := g["inputRequests"].(map[string]any); keysOf(reqs2) != keysOf(reqs) {
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestTaskInputRelayedToCaller: without ManagerOptions.Elicitation (as in
// serve), an upstream task's questions reach the gateway's MCP caller as
// its own task's input_required, under the upstream's ids; answered one
// at a time, the task stays input_required with only the open question,
// and the upstream, given both answers, completes. Called without an MCP
// caller (a framework), the question is refused as before.
func TestTaskInputRelayedToCaller(t *testing.T) {
	ask := func(id string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Message: id + "?", RequestedSchema: map[string]any{"type": "object"}}
	}
	url := newRelayUpstream(t, func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired },
		adapter.MustRawTool("two", "Asks two questions at once.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				answers, err := mcpadapter.AskInput(ctx, mcp.InputRequestMap{"a": ask("a"), "b": ask("b")})
				if err != nil {
					return nil, err
				}
				var got []string
				for _, k := range []string{"a", "b"} {
					if r, ok := answers[k].(*mcp.ElicitResult); ok {
						got = append(got, k+"="+fmt.Sprint(r.Content["v"]))
					}
				}
				return adapter.TextResult(strings.Join(got, " ")), nil
			}, nil))
	e, client := newRelayGateway(t, url)

	id := client.call("two", nil)["taskId"].(string)
	r := client.await(id, "input_required", "completed", "failed")
	reqs, _ := r["inputRequests"].(map[string]any)
	if r["status"] != "input_required" || keysOf(reqs) != "a,b" {
		t.Fatalf("gateway task = %v, want input_required with the upstream's questions a and b", r)
	}
	answer := func(k, v string) {
		t.Helper()
		ack, err := client.rpc("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
			k: map[string]any{"action": "accept", "content": map[string]any{"v": v}}}})
		if err != nil || ack["resultType"] != "complete" {
			t.Fatalf("tasks/update %s = %v, %+v", k, ack, err)
		}
	}
	answer("a", "1")
	r, _ = client.rpc("tasks/get", map[string]any{"taskId": id})
	if reqs, _ := r["inputRequests"].(map[string]any); r["status"] != "input_required" || keysOf(reqs) != "b" {
		t.Fatalf("after answering a: %v, want input_required with b alone", r)
	}
	answer("b", "2")
	done := client.await(id, "completed", "failed", "cancelled")
	if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:a=1 b=2 type:text]]" {
		t.Errorf("gateway task = %v, want the upstream's result of both answers", done)
	}

	// A framework's call (no MCP caller): nobody to ask.
	spec := mustLookup(t, e, "two")
	_, err := e.exec.Do(context.Background(), &adapter.Request{Spec: spec, Tool: "two", Args: json.RawMessage(`{}`)})
	if adapter.KindOf(err) != adapter.KindToolError || !strings.Contains(fmt.Sprint(err), "only a caller running as a task") {
		t.Errorf("framework call = %v, want the tool error of a question nobody can answer", err)
	}
}

// TestTaskComposedThroughGateway: an upstream tool that gathers its input
// synchronously (an input-required result, no task) and makes its task
// only on the round with the answers is served so through the gateway:
// round 1 is the InputRequired, round 2 the gateway's task (without the
// requestState or questions of the first), whose result reflects the
// answer.
func TestTaskComposedThroughGateway(t *testing.T) {
	url := newRelayUpstream(t, func(_ *adapter.Spec, req *mcp.CallToolRequest) mcpadapter.TaskSupport {
		if req != nil && len(req.Params.InputResponses) == 0 {
			return mcpadapter.TaskForbidden // gathers its input first
		}
		return mcpadapter.TaskRequired
	}, adapter.MustRawTool("greet_later", "Asks a name, then greets from a task.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			var name any
			if req := mcpadapter.RequestFromContext(ctx); req != nil {
				if r, ok := req.Params.InputResponses["user_name"].(*mcp.ElicitResult); ok && r.Action == "accept" {
					name = r.Content["name"]
				}
			}
			if name == nil {
				return nil, &mcpadapter.InputRequired{Requests: mcp.InputRequestMap{"user_name": &mcp.ElicitParams{
					Message: "Your name?", RequestedSchema: map[string]any{"type": "object"}}}}
			}
			return adapter.TextResult(fmt.Sprintf("Hello, %v!", name)), nil
		}, nil))
	_, client := newRelayGateway(t, url)

	first := client.call("greet_later", map[string]any{})
	reqs, _ := first["inputRequests"].(map[string]any)
	state, _ := first["requestState"].(string)
	if first["resultType"] != "input_required" || first["taskId"] != nil || reqs["user_name"] == nil || state == "" {
		t.Fatalf("round 1 = %v, want the upstream's InputRequired, no task", first)
	}
	second, rerr := client.rpc("tools/call", map[string]any{"name": "greet_later", "arguments": map[string]any{},
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}},
		"requestState":   state})
	if rerr != nil {
		t.Fatalf("round 2: %+v", rerr)
	}
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" || second["requestState"] != nil || second["inputRequests"] != nil {
		t.Fatalf("round 2 = %v, want a task of its own, without requestState or inputRequests", second)
	}
	done := client.await(id, "completed", "failed", "cancelled")
	if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:Hello, Alice! type:text]]" {
		t.Errorf("gateway task = %v, want the greeting of the answer", done)
	}
}

// TestTaskInputRelayBounded: the questions of an upstream task relayed to
// the gateway's caller keep the relay's bounds: a question the caller did
// not declare it can answer (sampling, here) and a ninth round end the
// gateway's task with a tool error, and the upstream's task is cancelled,
// not left waiting.
func TestTaskInputRelayBounded(t *testing.T) {
	ended := make(chan error, 4)
	url := newRelayUpstream(t, func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired },
		adapter.MustRawTool("sample", "Asks the caller's model.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				_, err := mcpadapter.AskInput(ctx, mcp.InputRequestMap{"m": &mcp.CreateMessageParams{MaxTokens: 5,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}})
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
	_, client := newRelayGateway(t, url)
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

	id := client.call("sample", nil)["taskId"].(string)
	r := client.await(id, "completed", "failed", "cancelled", "input_required")
	if res, _ := r["result"].(map[string]any); r["status"] != "completed" || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "sampling") {
		t.Errorf("sampling asked of a caller without it: %v, want a tool error", r)
	}
	upstreamCancelled("sampling")

	r = answerEveryRound(t, client, client.call("endless", nil)["taskId"].(string))
	if res, _ := r["result"].(map[string]any); r["status"] != "completed" || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "more than 8 times") {
		t.Errorf("a ninth round: %v, want a tool error", r)
	}
	upstreamCancelled("rounds")
}

// TestTaskMintBounded: an imported task-only tool's task, minted when the
// upstream made its own, keeps the caller's task cap: past it the call is
// refused with run_limit_exceeded and the upstream's new task cancelled;
// the caller's first task runs on.
func TestTaskMintBounded(t *testing.T) {
	started, ended := make(chan struct{}, 4), make(chan error, 4)
	release := make(chan struct{})
	url := newRelayUpstream(t, func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired },
		adapter.MustRawTool("hold", "Waits to be released.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				started <- struct{}{}
				select {
				case <-release:
					return adapter.TextResult("released"), nil
				case <-ctx.Done():
					ended <- ctx.Err()
					return nil, ctx.Err()
				}
			}, nil))
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: url, BearerToken: "alice"}); err != nil {
		t.Fatal(err)
	}
	gw := newExporter(t, e.reg, e.exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		PollInterval: 20 * time.Millisecond, MaxPerCaller: 1,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport { return e.m.TaskSupport(spec) }}})
	client := &rawClient{t: t, url: exServeHTTP(t, gw, nil).URL, tasks: true}

	first := client.call("hold", nil)
	id, _ := first["taskId"].(string)
	if id == "" {
		t.Fatalf("first call = %v, want a task", first)
	}
	<-started
	second := client.call("hold", nil)
	if second["taskId"] != nil || second["isError"] != true || !strings.Contains(fmt.Sprint(second["content"]), "too many tasks") {
		t.Errorf("past the cap: %v, want run_limit_exceeded", second)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Error("the upstream's task past the cap was left running")
	}
	close(release)
	if done := client.await(id, "completed", "failed", "cancelled"); fmt.Sprint(done["result"]) == "" || done["status"] != "completed" {
		t.Errorf("first task = %v, want completed", done)
	}
}

// TestTaskWithoutUpstreamTask: an upstream that lists a tool as running
// as a task but answers a call synchronously (past its own task cap, say)
// still gives the gateway's caller a task: minted with the answer when it
// comes at once, and after a grace (a second) when it is slow, holding
// the upstream's result either way.
func TestTaskWithoutUpstreamTask(t *testing.T) {
	url := newRelayUpstream(t, func(_ *adapter.Spec, req *mcp.CallToolRequest) mcpadapter.TaskSupport {
		if req != nil {
			return mcpadapter.TaskForbidden // runs synchronously when called
		}
		return mcpadapter.TaskOptional
	}, adapter.MustRawTool("sync", "Answers synchronously.", exObject(nil),
		func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var in struct {
				Ms int `json:"ms"`
			}
			_ = json.Unmarshal(args, &in)
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return adapter.TextResult("sync done"), nil
		}, nil))
	_, client := newRelayGateway(t, url)
	for _, ms := range []int{0, 1500} {
		start := time.Now()
		created := client.call("sync", map[string]any{"ms": ms})
		id, _ := created["taskId"].(string)
		if created["resultType"] != "task" || id == "" {
			t.Fatalf("%d ms: %v, want a task", ms, created)
		}
		if ms > 0 && time.Since(start) > time.Duration(ms)*time.Millisecond {
			t.Errorf("%d ms: the task came after the call ended (%s), want it after the grace", ms, time.Since(start))
		}
		done := client.await(id, "completed", "failed", "cancelled")
		if res, _ := done["result"].(map[string]any); fmt.Sprint(res["content"]) != "[map[text:sync done type:text]]" {
			t.Errorf("%d ms: task = %v", ms, done)
		}
	}
}
