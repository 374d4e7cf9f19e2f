package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestUpstreamReadApproval: a read passes policy like a call. A rule
// holding reads answers with a typed approval_pending error naming the
// ticket; once approved the same read runs; a denied one is refused with
// approval_denied. Each attempt is a ledger record.
func TestUpstreamReadApproval(t *testing.T) {
	ctx := context.Background()
	appr := &adapter.Deferred{}
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "secret text"), mcpadapter.Upstream{})}, nil, nil,
		&adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: appr, Policy: func(_ context.Context, c *adapter.ToolCall) bool {
			return c.Spec.Name == mcpadapter.ResourceSpecName && strings.Contains(string(c.Args), "test://a")
		}}}, "")
	ticket := func(uri string) string {
		t.Helper()
		_, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if _, kind := rpcKind(t, err); kind != "approval_pending" {
			t.Fatalf("read of %s under an approval rule: %v; want approval_pending", uri, err)
		}
		for tk, err := range appr.Pending(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if tk.Tool == mcpadapter.ResourceSpecName {
				return tk.ID
			}
		}
		t.Fatal("no pending ticket")
		return ""
	}
	id := ticket("test://a")
	if err := appr.Approve(ctx, id, "op"); err != nil {
		t.Fatal(err)
	}
	rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil || rr.Contents[0].Text != "secret text" {
		t.Fatalf("read after approval: %+v %v", rr, err)
	}
	// Another URI is another call: the approval of test://a does not cover it.
	if _, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/1"}); err != nil {
		t.Fatalf("read of a URI no rule holds: %v", err)
	}
	_, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a?x"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("read of an unknown URI: %v", err)
	}
	var outcomes []string
	for _, r := range f.records(t) {
		outcomes = append(outcomes, r.Outcome+"/"+r.Approval)
	}
	if got, want := strings.Join(outcomes, " "), "approval_pending/pending ok/approved ok/ not_found/"; got != want {
		t.Fatalf("ledger outcomes %q, want %q", got, want)
	}
}

// TestUpstreamReadDenied: a denied ticket refuses the read with a typed
// approval_denied error.
func TestUpstreamReadDenied(t *testing.T) {
	ctx := context.Background()
	appr := &adapter.Deferred{}
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "x"), mcpadapter.Upstream{})}, nil, nil,
		&adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: appr, Policy: func(context.Context, *adapter.ToolCall) bool { return true }}}, "")
	_, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if _, kind := rpcKind(t, err); kind != "approval_pending" {
		t.Fatalf("prompts/get under approval: %v", err)
	}
	for tk := range appr.Pending(ctx) {
		if err := appr.Deny(ctx, tk.ID, "no prompts today", "op"); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if _, kind := rpcKind(t, err); kind != "approval_denied" || !strings.Contains(err.Error(), "no prompts today") {
		t.Fatalf("prompts/get after a denial: %v; want approval_denied with the reason", err)
	}
}

// TestUpstreamUnknownFlood: reads of made-up URIs each get not_found and a
// record, but list the upstream's resources again at most once a second.
func TestUpstreamUnknownFlood(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "x")
	var lists atomic.Int64
	up.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil)
	start := time.Now()
	for i := range 200 {
		_, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: fmt.Sprintf("test://made-up/%d/%s", i, strings.Repeat("x", 4096))})
		if _, kind := rpcKind(t, err); kind != "not_found" {
			t.Fatalf("read %d of a made-up URI: %v", i, err)
		}
	}
	// One listing to start, then at most one a second.
	if n, most := lists.Load(), 2+int64(time.Since(start)/time.Second); n > most {
		t.Fatalf("200 reads of made-up URIs in %s listed the upstream's resources %d times; want at most %d", time.Since(start), n, most)
	}
	if n := len(f.records(t)); n != 200 {
		t.Fatalf("%d ledger records for 200 reads, want 200", n)
	}
}

// TestUpstreamHostilePrompts: prompts whose names are no valid tool names
// (spaces, 300 characters, control characters) are served under sanitised
// names that still reach them; the client cannot reach a prompt through a
// name the export does not list.
func TestUpstreamHostilePrompts(t *testing.T) {
	ctx := context.Background()
	up := mcp.NewServer(&mcp.Implementation{Name: "evil", Version: "v1"}, nil)
	long := strings.Repeat("p", 300)
	for _, name := range []string{"has space", long, "ctl\x1b[31m"} {
		up.AddPrompt(&mcp.Prompt{Name: name}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "got " + r.Params.Name}}}}, nil
		})
	}
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "evil", up, mcpadapter.Upstream{})}, nil, nil)
	lp, err := f.client.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 3 {
		t.Fatalf("prompts/list: %+v %v", lp, err)
	}
	for _, p := range lp.Prompts {
		if err := adapter.ValidateName(p.Name); err != nil {
			t.Errorf("served prompt name %q: %v", p.Name, err)
		}
		gp, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name})
		if err != nil || !strings.HasPrefix(gp.Messages[0].Content.(*mcp.TextContent).Text, "got ") {
			t.Errorf("prompts/get %q: %+v %v", p.Name, gp, err)
		}
	}
	// The remote names themselves are not ours to serve.
	_, err = f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "has space"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("prompts/get by the remote name: %v; want not_found", err)
	}
}

// TestUpstreamSubscriptionCap: one session holds a bounded number of
// subscriptions; the one past the cap is refused. (A 2025-11-25 client:
// from 2026-07-28 on the go-sdk client opens one subscriptions/listen
// stream per URI and reports no refusal.)
func TestUpstreamSubscriptionCap(t *testing.T) {
	ctx := context.Background()
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "x"), mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	var err error
	n := 0
	for ; n < 1000 && err == nil; n++ {
		err = f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", n)})
	}
	if err == nil || !strings.Contains(err.Error(), "run_limit_exceeded") || n > 300 {
		t.Fatalf("after %d subscriptions: %v; want run_limit_exceeded near 256", n, err)
	}
}

// TestUpstreamReconnect: when the upstream's session is lost, a read
// reconnects it, and the subscriptions held are taken again on the new
// session: resources/updated still reaches the client.
func TestUpstreamReconnect(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	var mu sync.Mutex
	var sessions []*mcp.ServerSession
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(sessions)
	}
	srv := mcpadapter.Upstream{Name: "up", NewTransport: func() (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := up.Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		sessions = append(sessions, ss)
		mu.Unlock()
		return ct, nil
	}}
	f := primExport(t, []mcpadapter.Upstream{srv}, nil, nil)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, ss := range sessions {
			ss.Close()
		}
	})
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatal(err)
	}
	f.wait(t, "updated test://a", func() {
		_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
	})
	mu.Lock()
	sessions[0].Close()
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
		if err == nil && rr.Contents[0].Text == "hello" && count() > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no read after the upstream's session was lost: %v (%d sessions)", err, count())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for len(f.events) > 0 {
		<-f.events
	}
	f.wait(t, "updated test://a", func() {
		_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
	})
}

// TestUpstreamLocalFirst: what the export's own go-sdk server holds comes
// first: a resource or prompt of the same URI or name upstream is not
// served, and the local one stays ungoverned by Upstreams (no record).
func TestUpstreamLocalFirst(t *testing.T) {
	ctx := context.Background()
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "upstream"), mcpadapter.Upstream{})}, nil, nil)
	srv := f.exp.MCPServer()
	srv.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://a", Text: "local"}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "local greet"}}}}, nil
	})
	lr, err := f.client.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 1 {
		t.Fatalf("resources/list: %+v %v; want test://a once", lr, err)
	}
	if rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"}); err != nil || rr.Contents[0].Text != "local" {
		t.Fatalf("read: %+v %v; want the local resource", rr, err)
	}
	lp, err := f.client.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 2 { // greet (local), secret (upstream)
		t.Fatalf("prompts/list: %+v %v", lp, err)
	}
	if gp, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "local greet" {
		t.Fatalf("get: %+v %v; want the local prompt", gp, err)
	}
	if n := len(f.records(t)); n != 0 {
		t.Fatalf("%d ledger records for the export's own resource and prompt, want none", n)
	}
}

// TestUpstreamHostileTemplate: an upstream's template that uritemplate
// cannot turn into a pattern (over 1000 variables in one expression; it
// panics) matches nothing: a read answers not_found, the export lives on.
func TestUpstreamHostileTemplate(t *testing.T) {
	ctx := context.Background()
	up := mcp.NewServer(&mcp.Implementation{Name: "evil", Version: "v1"}, nil)
	up.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "x://{" + strings.Repeat("a,", 1100) + "b}", Name: "t"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x://1", Text: "x"}}}, nil
		})
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "evil", up, mcpadapter.Upstream{})}, nil, nil)
	_, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://1"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("read matching only a hostile template: %v; want not_found", err)
	}
	if _, err := f.client.ListResourceTemplates(ctx, nil); err != nil {
		t.Fatalf("the export after a hostile template: %v", err)
	}
}

// TestUpstreamNullEntries: an upstream listing null resources, templates
// and prompts has them dropped; the export neither panics nor lists them.
func TestUpstreamNullEntries(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "x")
	up.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			switch r := res.(type) {
			case *mcp.ListResourcesResult:
				r.Resources = append(r.Resources, nil)
			case *mcp.ListResourceTemplatesResult:
				r.ResourceTemplates = append(r.ResourceTemplates, nil)
			case *mcp.ListPromptsResult:
				r.Prompts = append(r.Prompts, nil)
			}
			return res, err
		}
	})
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil)
	if lr, err := f.client.ListResources(ctx, nil); err != nil || len(lr.Resources) != 1 {
		t.Fatalf("resources/list: %+v %v", lr, err)
	}
	if lt, err := f.client.ListResourceTemplates(ctx, nil); err != nil || len(lt.ResourceTemplates) != 1 {
		t.Fatalf("resources/templates/list: %+v %v", lt, err)
	}
	if lp, err := f.client.ListPrompts(ctx, nil); err != nil || len(lp.Prompts) != 2 {
		t.Fatalf("prompts/list: %+v %v", lp, err)
	}
	if _, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/1"}); err != nil {
		t.Fatal(err)
	}
}

// TestUpstreamForeignUpdate: a server announcing an update of a URI it was
// not subscribed to (another server's) reaches no client.
func TestUpstreamForeignUpdate(t *testing.T) {
	ctx := context.Background()
	alpha := primUpstream(t, "alpha", "a")
	evil := primUpstream(t, "evil", "e")
	inject := make(chan jsonrpc.Message, 1)
	evilSrv := primServer(t, "evil", evil, mcpadapter.Upstream{})
	evilSrv.Transport = &injectTransport{Transport: evilSrv.Transport, inject: inject}
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "alpha", alpha, mcpadapter.Upstream{}), evilSrv}, nil, nil)
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatal(err)
	}
	// Once alpha's updates reach the client, evil's must not.
	f.wait(t, "updated test://a", func() {
		_ = alpha.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
	})
	time.Sleep(100 * time.Millisecond)
	for len(f.events) > 0 {
		<-f.events
	}
	inject <- &jsonrpc.Request{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"test://a"}`)}
	select {
	case e := <-f.events:
		t.Fatalf("a server's announcement of another server's URI reached the client: %s", e)
	case <-time.After(500 * time.Millisecond):
	}
}

// injectTransport delivers the messages sent on inject to the client as if
// the server had written them.
type injectTransport struct {
	mcp.Transport
	inject chan jsonrpc.Message
}

func (t *injectTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ic := &injectConn{Connection: c, inject: t.inject, msgs: make(chan jsonrpc.Message), errs: make(chan error, 1)}
	go func() {
		for {
			m, err := c.Read(context.Background())
			if err != nil {
				ic.errs <- err
				return
			}
			ic.msgs <- m
		}
	}()
	return ic, nil
}

type injectConn struct {
	mcp.Connection
	inject chan jsonrpc.Message
	msgs   chan jsonrpc.Message
	errs   chan error
}

func (c *injectConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.inject:
		return m, nil
	case m := <-c.msgs:
		return m, nil
	case err := <-c.errs:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
