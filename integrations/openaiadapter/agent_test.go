package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// agentAPI is an in-process Agents API for one idle session: its event
// stream sends events, and it records the events posted to the session
// (the user's input, then each tool result).
type agentAPI struct {
	mu     sync.Mutex
	posted []map[string]any
}

func newAgentAPI(t *testing.T, events ...string) (*agentAPI, openai.Client) {
	a := &agentAPI{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/events"):
			w.Header().Set("Content-Type", "text/event-stream")
			for _, e := range events {
				fmt.Fprintf(w, "data: %s\n\n", e)
			}
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"sess_1","status":"idle"}`)
		default:
			var body struct {
				Events []map[string]any `json:"events"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				t.Errorf("posted body: %v", err)
			}
			a.mu.Lock()
			a.posted = append(a.posted, body.Events...)
			a.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(srv.Close)
	return a, openai.NewClient(option.WithBaseURL(srv.URL), option.WithHTTPClient(srv.Client()), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

// results returns the tool results posted, by call id.
func (a *agentAPI) results() map[string]map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]map[string]any{}
	for _, e := range a.posted {
		if e["type"] == "agent.session.input.tool_result" {
			out[e["call_id"].(string)] = e
		}
	}
	return out
}

func agentEvt(kind, id, extra string) string {
	return fmt.Sprintf(`{"type":"agent.session.%s","event_id":%q%s}`, kind, id, extra)
}

func agentFunctionCall(call, name, args string) string {
	return agentEvt("turn.item.added", "ev_"+call, fmt.Sprintf(`,"turn_id":"turn_1","item":{"id":"it_%s","type":"function_call","turn_id":"turn_1","call_id":%q,"name":%q,"arguments":%q,"status":"in_progress"}`, call, call, name, args))
}

// TestAgentHandlers: the SDK's own Agents session stream runs the calls of
// a turn through AgentHandlers: a result, a tool error and a held call
// (approval_pending, with its ticket) are successful tool results the
// model reads; only a fault fails the result, reported to OnToolError.
func TestAgentHandlers(t *testing.T) {
	reg := registry.New()
	rm, rmSpec := newRM()
	reg.MustRegister(adapter.MustTool("add", "Adds two numbers.", add, nil), rmSpec,
		adapter.MustTool("fail", "fails", func(context.Context, struct{}) (string, error) { return "", errors.New("the disk is full") },
			&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}),
		adapter.MustTool("down", "its server is gone", func(context.Context, struct{}) (string, error) {
			return "", &adapter.Error{Kind: adapter.KindConnection, Message: "upstream closed"}
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: &approval.Deferred{},
		Policy: adapter.ApproveNever, Tools: map[string]adapter.ApprovalPolicy{"rm": adapter.ApproveAlways}}})
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api, client := newAgentAPI(t,
		agentEvt("turn.created", "ev_0", `,"turn_id":"turn_1","turn":{"id":"turn_1","subagent_id":null}`),
		agentFunctionCall("c_add", "add", `{"a":2,"b":3}`),
		agentFunctionCall("c_fail", "fail", `{}`),
		agentFunctionCall("c_rm", "rm", `{"path":"/tmp/a"}`),
		agentFunctionCall("c_bad", "add", `{"a":"two"}`),
		agentFunctionCall("c_down", "down", `{}`),
		agentEvt("turn.completed", "ev_done", `,"turn_id":"turn_1"`),
		agentEvt("idle", "ev_idle", `,"session":{"status":"idle"}`))
	var failures []openai.BetaAgentToolError
	ctx, _ := adapter.WithRun(context.Background(), nil)
	s := client.Beta.Agents.Sessions.Stream(ctx, "sess_1", openai.AgentSessionStreamParams{Input: "go", ToolHandlers: ts.AgentHandlers(),
		OnToolError: func(_ context.Context, f openai.BetaAgentToolError) { failures = append(failures, f) }})
	defer s.Close()
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	res := api.results()
	output := func(id string) string {
		r := res[id]
		if r == nil || r["success"] != true {
			t.Errorf("%s: result %v, want a successful one", id, r)
			return ""
		}
		out, _ := r["output"].(string)
		return out
	}
	if got := output("c_add"); got != "5" {
		t.Errorf("add read %q", got)
	}
	if got := output("c_fail"); payloadKind(got) != string(adapter.KindToolError) || !strings.Contains(got, "the disk is full") {
		t.Errorf("fail read %q", got)
	}
	if got := output("c_rm"); payloadKind(got) != string(adapter.KindApprovalPending) || !strings.Contains(got, "tkt_") {
		t.Errorf("rm read %q, want approval_pending with its ticket", got)
	}
	if got := output("c_bad"); payloadKind(got) != string(adapter.KindArgsInvalid) {
		t.Errorf("bad arguments read %q", got)
	}
	if r := res["c_down"]; r == nil || r["success"] != false || r["error"] != "Tool handler failed." {
		t.Errorf("the fault's result %v, want a failed one", r)
	}
	if len(failures) != 1 || failures[0].ToolName != "down" || !strings.Contains(fmt.Sprint(failures[0].Err), "upstream closed") {
		t.Errorf("OnToolError saw %v, want the fault of down", failures)
	}
	if rm.mu.Load() != 0 {
		t.Error("the held call ran")
	}
}
