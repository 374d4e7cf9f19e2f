package mcpadapter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// subUpstream is a go-sdk server with a resource test://a and a template
// test://items/{id}, whose subscribe answers with sub; versions, if set,
// are the only protocol versions it speaks.
func subUpstream(t testing.TB, sub func(context.Context, *mcp.SubscribeRequest) error, versions ...string) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, &mcp.ServerOptions{
		SubscribeHandler:          sub,
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		SupportedProtocolVersions: versions,
	})
	read := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "body"}}}, nil
	}
	srv.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, read)
	return srv
}

// otherClient connects one more client to the fixture's export at
// version; its notifications arrive on the channel, as f.events'.
func otherClient(t testing.TB, f *primFixture, version string) (*mcp.ClientSession, chan string) {
	t.Helper()
	events := make(chan string, 100)
	note := func(s string) {
		select {
		case events <- s:
		default:
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.exp.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "other", Version: "v1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { note("updated " + r.Params.URI) },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			note("log " + r.Params.Logger + " " + string(r.Params.Level))
		},
	}).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, events
}

// eventually polls cond for 5 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5 s", what)
		}
	}
}

// TestUpstreamSubscribeServerCap: the exports' sessions together hold at
// most 256 distinct URIs on one server (each a subscriptions/listen stream
// of its own to a 2026-07-28 server, as this one is): ten sessions (ten
// callers) of 30 each get 256, the rest refused with run_limit_exceeded,
// and the server sees 256 subscribes; an unsubscribe frees a place.
func TestUpstreamSubscribeServerCap(t *testing.T) {
	ctx := context.Background()
	var subs atomic.Int64
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil })
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	sessions := []*mcp.ClientSession{f.client}
	for range 9 {
		cs, _ := otherClient(t, f, "2025-11-25")
		sessions = append(sessions, cs)
	}
	other := sessions[1]
	ok, refused := 0, 0
	for i, cs := range sessions {
		for n := range 30 {
			err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", i*30+n)})
			switch {
			case err == nil:
				ok++
			default:
				if _, kind := rpcKind(t, err); kind != "run_limit_exceeded" {
					t.Fatalf("subscribe %d: %v; want run_limit_exceeded", i*30+n, err)
				}
				refused++
			}
		}
	}
	if ok != 256 || refused != 44 {
		t.Fatalf("%d subscribes held, %d refused; want 256 and 44", ok, refused)
	}
	eventually(t, "256 subscribes upstream", func() bool { return subs.Load() == 256 })
	time.Sleep(100 * time.Millisecond)
	if n := subs.Load(); n != 256 {
		t.Fatalf("the server saw %d subscribes; want 256", n)
	}
	// Another subscriber of a URI held takes no place.
	if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/0"}); err != nil {
		t.Fatalf("a second subscriber of a held URI: %v", err)
	}
	if err := f.client.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://items/1"}); err != nil {
		t.Fatal(err)
	}
	if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/399"}); err != nil {
		t.Fatalf("a subscribe once a place is free: %v", err)
	}
}

// TestUpstreamSubscribeGoverned: a subscribe passes policy as a read of
// the URI does, with one ledger record each: a rule holding test://a
// holds its subscribe (the server sees none) until approved; the approval
// of the subscribe is no approval of a read.
func TestUpstreamSubscribeGoverned(t *testing.T) {
	ctx := context.Background()
	var subs atomic.Int64
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil }, "2025-11-25")
	appr := &adapter.Deferred{}
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil,
		&adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: appr, Policy: func(_ context.Context, c *adapter.ToolCall) bool {
			return c.Spec.Name == mcpadapter.ResourceSpecName && strings.Contains(string(c.Args), "test://a")
		}}}, "2025-11-25")
	err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"})
	if err == nil {
		t.Fatal("a subscribe to a URI an approval rule holds ran without approval")
	}
	if _, kind := rpcKind(t, err); kind != "approval_pending" {
		t.Fatalf("subscribe under an approval rule: %v; want approval_pending", err)
	}
	if n := subs.Load(); n != 0 {
		t.Fatalf("the server saw %d subscribes of a held one", n)
	}
	for tk, err := range appr.Pending(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if err := appr.Approve(ctx, tk.ID, "op"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatalf("subscribe once approved: %v", err)
	}
	if n := subs.Load(); n != 1 {
		t.Fatalf("the server saw %d subscribes; want 1", n)
	}
	_, err = f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if _, kind := rpcKind(t, err); kind != "approval_pending" {
		t.Fatalf("a read after the subscribe's approval: %v; want approval_pending (its own ticket)", err)
	}
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/1"}); err != nil {
		t.Fatalf("a subscribe no rule holds: %v", err)
	}
	err = f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "other://nothing"})
	if _, kind := rpcKind(t, err); kind != "not_found" {
		t.Fatalf("a subscribe to a URI no server has: %v; want not_found", err)
	}
	var got []string
	for _, r := range f.records(t) {
		got = append(got, r.Tool+" "+r.Outcome+"/"+r.Approval)
	}
	want := "resources/subscribe approval_pending/pending\nresources/subscribe ok/approved\nresources/read approval_pending/pending\nresources/subscribe ok/\nresources/subscribe not_found/"
	if strings.Join(got, "\n") != want {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestUpstreamSubscribeInFlight: a second subscriber to a URI whose first
// subscribe is still in flight upstream gets the first's answer: when that
// fails, both fail and nothing stays counted, so the next subscribe asks
// the server again and its updates arrive.
func TestUpstreamSubscribeInFlight(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	entered, release := make(chan struct{}), make(chan struct{})
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
			return errors.New("not now")
		}
		return nil
	}, "2025-11-25")
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	other, events := otherClient(t, f, "2025-11-25")
	var wg sync.WaitGroup
	defer wg.Wait()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	errA, errB := make(chan error, 1), make(chan error, 1)
	wg.Go(func() { errA <- f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}) })
	<-entered
	wg.Go(func() { errB <- other.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}) })
	select {
	case err := <-errB:
		t.Fatalf("the second subscriber was answered (%v) before the server answered the first", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-errA; err == nil {
		t.Fatal("the first subscribe succeeded; the server refused it")
	}
	if err := <-errB; err == nil {
		t.Fatal("the second subscriber succeeded though the server refused the subscription")
	}
	if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatalf("a subscribe after the failed one: %v", err)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("the server saw %d subscribes; want 2 (the failed one left nothing counted)", n)
	}
	deadline := time.After(5 * time.Second)
	for {
		_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
		select {
		case e := <-events:
			if e == "updated test://a" {
				return
			}
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no update reached the subscriber")
		}
	}
}

// TestUpstreamLogLevelShared: the one upstream session of a pre-2026-07-28
// server is asked for the most verbose level a live export session asked,
// asked again when a session changes its level or ends: one session
// neither silences the others nor keeps the server at debug once it is
// gone. Each session gets only the messages at its own level.
func TestUpstreamLogLevelShared(t *testing.T) {
	ctx := context.Background()
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { return nil }, "2025-11-25")
	var mu sync.Mutex
	var asked []mcp.LoggingLevel
	up.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" {
				mu.Lock()
				asked = append(asked, p.Level)
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	last := func() mcp.LoggingLevel {
		mu.Lock()
		defer mu.Unlock()
		if len(asked) == 0 {
			return ""
		}
		return asked[len(asked)-1]
	}
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	loud := f.client
	quiet, quietEvents := otherClient(t, f, "2025-11-25")

	if err := loud.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if err := quiet.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "emergency"}); err != nil {
		t.Fatal(err)
	}
	if got := last(); got != "debug" {
		t.Fatalf("the server was asked %q; want debug (one session must not silence another)", got)
	}
	// The relay: each session by its own level.
	f.wait(t, "log up/db info", func() {
		for ss := range up.Sessions() {
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "db", Data: "x"})
		}
	})
	select {
	case e := <-quietEvents:
		t.Fatalf("a session at emergency got %q", e)
	default:
	}
	if err := quiet.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if err := loud.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	if got := last(); got != "warning" {
		t.Fatalf("after the debug session moved to error, the server was asked %q; want warning", got)
	}
	if err := loud.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	loud.Close()
	eventually(t, "warning once the debug session ended", func() bool { return last() == "warning" })
	quiet.Close()
	eventually(t, "emergency once no session asks for logs", func() bool { return last() == "emergency" })
}

// TestUpstreamSubscribeRefusedAfter: a subscribe a guard refuses after it
// ran (on its result) holds nothing: the server is unsubscribed again and
// the place under the server's cap is free.
func TestUpstreamSubscribeRefusedAfter(t *testing.T) {
	ctx := context.Background()
	var subs, unsubs atomic.Int64
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, &mcp.ServerOptions{
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { unsubs.Add(1); return nil },
		SupportedProtocolVersions: []string{"2025-11-25"},
	})
	up.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	guard := adapter.Guard{Name: "no-subscribe", Output: func(_ context.Context, c *adapter.ToolCall, _ *adapter.Result) error {
		if c.Tool == "resources/subscribe" {
			return errors.New("subscriptions are off")
		}
		return nil
	}}
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil,
		&adapter.ExecutorOptions{Guards: []adapter.Guard{guard}}, "2025-11-25")
	for n := range 300 {
		err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", n)})
		if _, kind := rpcKind(t, err); kind != "guardrail_blocked" {
			t.Fatalf("subscribe %d past an output guard: %v; want guardrail_blocked (not a cap)", n, err)
		}
	}
	eventually(t, "every refused subscribe unsubscribed upstream", func() bool { return unsubs.Load() == subs.Load() && subs.Load() == 300 })
}

// TestUpstreamSubscribeConcurrent: 40 sessions race to subscribe one URI
// while the server refuses the first attempt; whatever each is told, the
// server ends with as many unsubscribes as subscribes it granted once all
// are gone, and each session told yes gets the URI's updates.
func TestUpstreamSubscribeConcurrent(t *testing.T) {
	ctx := context.Background()
	var calls, granted, unsubs atomic.Int64
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			if calls.Add(1) == 1 {
				time.Sleep(100 * time.Millisecond)
				return errors.New("not yet")
			}
			granted.Add(1)
			return nil
		},
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { unsubs.Add(1); return nil },
		SupportedProtocolVersions: []string{"2025-11-25"},
	})
	up.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	type client struct {
		cs     *mcp.ClientSession
		events chan string
		err    error
	}
	clients := make([]*client, 40)
	for i := range clients {
		cs, ev := otherClient(t, f, "2025-11-25")
		clients[i] = &client{cs: cs, events: ev}
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			time.Sleep(time.Duration(i%8) * 30 * time.Millisecond)
			c.err = c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"})
		})
	}
	wg.Wait()
	yes := 0
	for _, c := range clients {
		if c.err == nil {
			yes++
		}
	}
	if yes == 0 || yes == len(clients) {
		t.Fatalf("%d of %d subscribes succeeded; want some refused with the first, some not", yes, len(clients))
	}
	_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
	for i, c := range clients {
		if c.err != nil {
			continue
		}
		select {
		case e := <-c.events:
			if e != "updated test://a" {
				t.Fatalf("session %d got %q", i, e)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("session %d, subscribed, got no update", i)
		}
	}
	for _, c := range clients {
		c.cs.Close()
	}
	eventually(t, "as many unsubscribes as subscribes granted", func() bool { return unsubs.Load() == granted.Load() })
	time.Sleep(100 * time.Millisecond)
	if g, u := granted.Load(), unsubs.Load(); g != 1 || u != 1 {
		t.Fatalf("the server granted %d subscribes and got %d unsubscribes; want 1 and 1", g, u)
	}
}
