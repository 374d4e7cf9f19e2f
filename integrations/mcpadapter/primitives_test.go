package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// primUpstream is a go-sdk server with a resource, a template, prompts, a
// completion handler and subscriptions.
func primUpstream(t testing.TB, name, body string) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{r.Params.Ref.Type + ":" + r.Params.Ref.Name + r.Params.Ref.URI + ":" + r.Params.Argument.Value + "x"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "test://a", Name: "a", MIMEType: "text/plain"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: body}}}, nil
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "item " + strings.TrimPrefix(r.Params.URI, "test://items/")}}}, nil
	})
	for _, p := range []string{"greet", "secret"} {
		srv.AddPrompt(&mcp.Prompt{Name: p, Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name + " says hello to " + r.Params.Arguments["who"]}}}}, nil
		})
	}
	return srv
}

type primFixture struct {
	exp    *mcpadapter.Exporter
	exec   *adapter.Executor
	ledger *adapter.MemoryLedger
	client *mcp.ClientSession
	events chan string
}

// primExport serves the upstream servers through an Exporter with
// Upstreams, and connects a client to it.
func primExport(t testing.TB, srvs []mcpadapter.Upstream, mopts *mcpadapter.ManagerOptions, eopts *mcpadapter.ExportOptions) *primFixture {
	t.Helper()
	return primExportWith(t, srvs, mopts, eopts, nil, "")
}

// primExportWith is primExport with executor options and the protocol
// version the client asks for ("": the newest).
func primExportWith(t testing.TB, srvs []mcpadapter.Upstream, mopts *mcpadapter.ManagerOptions, eopts *mcpadapter.ExportOptions, xopts *adapter.ExecutorOptions, version string) *primFixture {
	t.Helper()
	ctx := context.Background()
	up := registry.New()
	m := mcpadapter.NewManager(up, mopts)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, srvs...); err != nil {
		t.Fatal(err)
	}
	led := adapter.NewMemoryLedger(1000)
	if xopts == nil {
		xopts = &adapter.ExecutorOptions{}
	}
	xopts.Ledger = led
	exec := adapter.NewExecutor(up, xopts)
	t.Cleanup(func() { exec.Close() })
	if eopts == nil {
		eopts = &mcpadapter.ExportOptions{}
	}
	eopts.Upstreams = &mcpadapter.Upstreams{Manager: m}
	exp, err := mcpadapter.NewExporter(up, exec, eopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exp.Close() })
	f := &primFixture{exp: exp, exec: exec, ledger: led, events: make(chan string, 100)}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := exp.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	note := func(s string) {
		select {
		case f.events <- s:
		default:
		}
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { note("updated " + r.Params.URI) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note("resources changed") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { note("prompts changed") },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			note("log " + r.Params.Logger + " " + string(r.Params.Level))
		},
	})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.client = cs
	return f
}

func primServer(t testing.TB, name string, srv *mcp.Server, s mcpadapter.Upstream) mcpadapter.Upstream {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	s.Name, s.Transport = name, ct
	return s
}

// records returns the ledger's records once written.
func (f *primFixture) records(t testing.TB) []adapter.Record {
	t.Helper()
	if err := f.exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f.ledger.Records()
}

// wait waits for an event to reach the client, calling poke (if set) every
// 50 ms meanwhile: what the upstream sends before the subscription or the
// log level reached it is not for this client.
func (f *primFixture) wait(t testing.TB, want string, poke func()) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case got := <-f.events:
			if got == want {
				return
			}
		case <-tick.C:
			if poke != nil {
				poke()
			}
		case <-deadline:
			t.Fatalf("no %q reached the client", want)
		}
	}
}

func rpcKind(t testing.TB, err error) (int64, string) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("error %v is not a JSON-RPC error", err)
	}
	var data struct{ Kind string }
	_ = json.Unmarshal(we.Data, &data)
	return we.Code, data.Kind
}

func TestUpstreamResources(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil)

	lr, err := f.client.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 1 || lr.Resources[0].URI != "test://a" {
		t.Fatalf("resources/list = %+v, %v; want test://a", lr, err)
	}
	lt, err := f.client.ListResourceTemplates(ctx, nil)
	if err != nil || len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != "test://items/{id}" {
		t.Fatalf("resources/templates/list = %+v, %v", lt, err)
	}
	rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "hello" {
		t.Fatalf("read test://a = %+v, %v", rr, err)
	}
	// A URI no server lists, matching a template: a resource link of a tool.
	rr, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/7"})
	if err != nil || rr.Contents[0].Text != "item 7" {
		t.Fatalf("read test://items/7 = %+v, %v", rr, err)
	}
	_, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nowhere"})
	if code, kind := rpcKind(t, err); code != mcp.CodeResourceNotFound || kind != "not_found" {
		t.Fatalf("read of an unknown URI: code %d kind %q; want %d not_found", code, kind, mcp.CodeResourceNotFound)
	}
	var reads []string
	for _, r := range f.records(t) {
		if r.Tool == "resources/read" {
			reads = append(reads, r.Source+" "+string(r.Args)+" "+r.Outcome)
		}
	}
	want := []string{`mcp:up {"uri":"test://a"} ok`, `mcp:up {"uri":"test://items/7"} ok`, ` {"uri":"test://nowhere"} not_found`}
	if strings.Join(reads, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ledger records of reads:\n%s\nwant:\n%s", strings.Join(reads, "\n"), strings.Join(want, "\n"))
	}
}

func TestUpstreamResourceSize(t *testing.T) {
	ctx := context.Background()
	html := strings.Repeat("<p>app</p>", 45_000) // 450 KB, an MCP App's size
	up := primUpstream(t, "up", html)
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, &mcpadapter.ManagerOptions{MaxResultBytes: 1 << 20}, nil)
	rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil || rr.Contents[0].Text != html {
		t.Fatalf("a 450 KB resource did not pass unchanged: %v", err)
	}

	big := primUpstream(t, "big", strings.Repeat("x", 2<<20))
	f = primExport(t, []mcpadapter.Upstream{primServer(t, "big", big, mcpadapter.Upstream{})}, &mcpadapter.ManagerOptions{MaxResultBytes: 1 << 20}, nil)
	_, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if _, kind := rpcKind(t, err); kind != "tool_error" || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a 2 MiB resource over a 1 MiB limit: %v; want a tool_error naming the limit", err)
	}
}

func TestUpstreamResourceClaimedTwice(t *testing.T) {
	ctx := context.Background()
	f := primExport(t, []mcpadapter.Upstream{
		primServer(t, "zeta", primUpstream(t, "zeta", "from zeta"), mcpadapter.Upstream{}),
		primServer(t, "alpha", primUpstream(t, "alpha", "from alpha"), mcpadapter.Upstream{}),
	}, nil, nil)
	lr, err := f.client.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 1 {
		t.Fatalf("resources/list = %+v, %v; want test://a once", lr, err)
	}
	rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil || rr.Contents[0].Text != "from alpha" {
		t.Fatalf("read of a URI two servers claim = %+v, %v; want the first by name (alpha)", rr, err)
	}
}

func TestUpstreamFilter(t *testing.T) {
	ctx := context.Background()
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "hello"), mcpadapter.Upstream{})}, nil,
		&mcpadapter.ExportOptions{Filter: registry.Filter{Func: func(s *adapter.Spec) bool { return s.Source.Server != "up" }}})
	lr, err := f.client.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 0 {
		t.Fatalf("resources/list of a filtered-out server = %+v, %v; want none", lr, err)
	}
	lp, err := f.client.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 0 {
		t.Fatalf("prompts/list of a filtered-out server = %+v, %v; want none", lp, err)
	}
	_, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("read through a filter hiding the server: %v; want not_found", err)
	}
	_, err = f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("prompts/get through a filter hiding the server: %v; want not_found", err)
	}
}

func TestUpstreamPrompts(t *testing.T) {
	ctx := context.Background()
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", primUpstream(t, "up", "hello"), mcpadapter.Upstream{Prefix: true, Deny: []string{"secret"}})}, nil, nil)
	lp, err := f.client.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 1 || lp.Prompts[0].Name != "up_greet" {
		t.Fatalf("prompts/list = %+v, %v; want up_greet alone (prefixed, secret denied)", lp, err)
	}
	gp, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up_greet", Arguments: map[string]string{"who": "bob"}})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "up says hello to bob" {
		t.Fatalf("prompts/get up_greet = %+v, %v", gp, err)
	}
	for _, name := range []string{"up_secret", "secret", "greet"} {
		_, err = f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		if code, kind := rpcKind(t, err); code != jsonrpc.CodeInvalidParams || kind != "not_found" {
			t.Fatalf("prompts/get %s: code %d kind %q; want -32602 not_found", name, code, kind)
		}
	}
	cr, err := f.client.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "up_greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "b"}})
	if err != nil || len(cr.Completion.Values) != 1 || cr.Completion.Values[0] != "ref/prompt:greet:bx" {
		t.Fatalf("complete up_greet = %+v, %v; want the upstream's completion of greet", cr, err)
	}
	cr, err = f.client.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "test://items/{id}"}, Argument: mcp.CompleteParamsArgument{Name: "id", Value: "4"}})
	if err != nil || len(cr.Completion.Values) != 1 || cr.Completion.Values[0] != "ref/resource:test://items/{id}:4x" {
		t.Fatalf("complete test://items/{id} = %+v, %v", cr, err)
	}
	var got []string
	for _, r := range f.records(t) {
		got = append(got, r.Tool+" "+r.Outcome)
	}
	want := "prompts/get ok\nprompts/get not_found\nprompts/get not_found\nprompts/get not_found\ncompletion/complete ok\ncompletion/complete ok"
	if strings.Join(got, "\n") != want {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestUpstreamNotifications(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil)

	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatal(err)
	}
	f.wait(t, "updated test://a", func() {
		_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
	})

	up.AddResource(&mcp.Resource{URI: "test://b", Name: "b"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://b", Text: "b"}}}, nil
	})
	f.wait(t, "resources changed", nil)
	lr, err := f.client.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 2 {
		t.Fatalf("resources/list after the upstream added one = %+v, %v", lr, err)
	}
	up.AddPrompt(&mcp.Prompt{Name: "new"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	f.wait(t, "prompts changed", nil)

	if err := f.client.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	f.wait(t, "log up/db warning", func() {
		for ss := range up.Sessions() {
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "slow"})
		}
	})
}
