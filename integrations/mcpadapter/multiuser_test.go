package mcpadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestExportMultiUser is issue 12's multi-user case over the export: two
// bearer identities share one executor; bob cannot use alice's approval or
// her cache entries, and each client session is a run of its own.
func TestExportMultiUser(t *testing.T) {
	var rmRuns, inboxRuns atomic.Int64
	closed := false
	obj := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"path": {Type: "string"}}}
	rm := adapter.MustRawTool("rm", "", obj, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		rmRuns.Add(1)
		return adapter.TextResult("removed"), nil
	}, nil)
	inbox := adapter.MustRawTool("inbox", "", obj, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		inboxRuns.Add(1)
		return adapter.TextResult("inbox of " + adapter.ToolCallFromContext(ctx).Identity.Subject), nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}})
	reg := registry.New()
	reg.MustRegister(rm, inbox)
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: deferred},
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"inbox": time.Hour}},
		Limits:   adapter.Limits{MaxCalls: 4},
	})
	defer exec.Close()
	ex := newExporter(t, reg, exec, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
	alice := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	bob := exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))
	call := func(cs *mcp.ClientSession, tool string) (string, string) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "/srv/data"}})
		if err != nil {
			t.Fatalf("CallTool %s: %v", tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			return "", text
		}
		var p adapter.Payload
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(err)
		}
		return string(p.Error.Kind), p.Error.Ticket
	}

	// Approval: alice's approved call is hers.
	kind, ticket := call(alice, "rm")
	if kind != string(adapter.KindApprovalPending) {
		t.Fatalf("alice's rm: %s", kind)
	}
	if err := deferred.Approve(context.Background(), ticket, "root"); err != nil {
		t.Fatal(err)
	}
	if kind, other := call(bob, "rm"); kind != string(adapter.KindApprovalPending) || other == ticket || rmRuns.Load() != 0 {
		t.Fatalf("bob's identical rm: %s (ticket %s, runs %d), want a pending ticket of his own", kind, other, rmRuns.Load())
	}
	if kind, _ := call(alice, "rm"); kind != "" || rmRuns.Load() != 1 {
		t.Fatalf("alice's approved rm: %s (runs %d)", kind, rmRuns.Load())
	}

	// Cache: bob is never served alice's inbox.
	if _, text := call(alice, "inbox"); text != "inbox of alice" {
		t.Errorf("alice's inbox: %q", text)
	}
	if _, text := call(bob, "inbox"); text != "inbox of bob" {
		t.Errorf("bob's inbox: %q, want his own, not alice's cached one", text)
	}

	// Runs: each session is a run. Alice's session has had 2 calls
	// admitted (a pending call is not admitted); the limit is 4.
	call(alice, "inbox")
	call(alice, "inbox")
	if kind, _ := call(alice, "inbox"); kind != string(adapter.KindRunLimitExceeded) {
		t.Errorf("alice's fifth admitted call in one session: %q, want run_limit_exceeded", kind)
	}
	fresh := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	if kind, text := call(fresh, "inbox"); kind != "" || !strings.Contains(text, "alice") {
		t.Errorf("alice's call in a new session: %q %q, want a fresh run", kind, text)
	}
}
