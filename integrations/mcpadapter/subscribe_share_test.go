package mcpadapter_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestUpstreamSubscribeCallerShare: one caller flooding subscribes holds
// at most 32 distinct URIs of a server, the rest refused with
// run_limit_exceeded, so another caller still subscribes; an unsubscribe
// gives the caller its place back.
func TestUpstreamSubscribeCallerShare(t *testing.T) {
	ctx := context.Background()
	var subs atomic.Int64
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil })
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	ok := 0
	for n := range 300 {
		err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", n)})
		if err == nil {
			ok++
			continue
		}
		if _, kind := rpcKind(t, err); kind != "run_limit_exceeded" || !strings.Contains(err.Error(), "at most 32") {
			t.Fatalf("subscribe %d: %v; want run_limit_exceeded naming the caller's share", n, err)
		}
	}
	if ok != 32 {
		t.Fatalf("the flooding caller holds %d subscriptions; want 32", ok)
	}
	other, _ := otherClient(t, f, "2025-11-25")
	for _, uri := range []string{"test://items/1000", "test://items/0"} {
		if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("another caller's subscribe of %s after the flood: %v", uri, err)
		}
	}
	if err := f.client.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://items/0"}); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/999"}); err != nil {
		t.Fatalf("a subscribe once the caller unsubscribed one: %v", err)
	}
	eventually(t, "34 subscribes upstream", func() bool { return subs.Load() == 34 })
}

// TestUpstreamSubscribeShareBySubject: the share is the verified
// subject's, not a session's: alice's second session gets no more places
// than her first left, bob gets his own, and the places of alice's
// session come back to her when it ends.
func TestUpstreamSubscribeShareBySubject(t *testing.T) {
	ctx := context.Background()
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { return nil })
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	srv := exServeHTTP(t, f.exp, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
	alice1 := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	alice2 := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	bob := exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))
	for n := range 32 {
		if err := alice1.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", n)}); err != nil {
			t.Fatalf("alice's subscribe %d: %v", n, err)
		}
	}
	// A URI she holds already takes no place; a new one does.
	if err := alice2.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/0"}); err != nil {
		t.Fatalf("alice's second session on a URI she holds: %v", err)
	}
	err := alice2.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/100"})
	if _, kind := rpcKind(t, err); kind != "run_limit_exceeded" {
		t.Fatalf("alice's 33rd URI from another session: %v; want run_limit_exceeded", err)
	}
	if err := bob.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/100"}); err != nil {
		t.Fatalf("bob's subscribe: %v", err)
	}
	if err := alice1.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "alice's places back once her session ended", func() bool {
		return alice2.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/101"}) == nil
	})
}

// TestUpstreamSubscribeShareStateless: on the stateless endpoint, where
// each subscriptions/listen stream is a session of its own, an anonymous
// caller's share is its address's: 40 streams of one client hold 32 URIs
// upstream, and another client from the same address gets no more. (The
// go-sdk client's Subscribe does not report a refused stream: the
// upstream's subscribes tell.)
func TestUpstreamSubscribeShareStateless(t *testing.T) {
	var subs atomic.Int64
	up := subUpstream(t, func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil })
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")
	url := exServeHTTP(t, f.exp, &mcpadapter.HTTPOptions{Stateless: true}).URL
	cs := connectStateless(t, url, nil, nil)
	for i := range 40 {
		_ = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", i)})
	}
	other := connectStateless(t, url, nil, nil)
	_ = other.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://items/1000"})
	eventually(t, "32 subscribes upstream", func() bool { return subs.Load() >= 32 })
	time.Sleep(200 * time.Millisecond)
	if n := subs.Load(); n != 32 {
		t.Errorf("the server saw %d subscribes from one address; want 32", n)
	}
}
