package mcpadapter_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestUpstreamBothErasHTTP: over the export's HTTP handler, a 2025-11-25
// client (sessions) and a 2026-07-28 client (stateless, subscriptions/listen)
// each read, get, subscribe and hear list changes, under their verified
// identity: the ledger names the caller, not an anonymous session.
func TestUpstreamBothErasHTTP(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			up := primUpstream(t, "up", "hello")
			f := primExport(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil)
			srv := exServeHTTP(t, f.exp, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier, Scopes: []string{"tools"}}})
			note := func(e string) {
				select {
				case f.events <- e:
				default:
				}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "v1"}, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
					note("http updated " + r.Params.URI)
				},
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note("http resources changed") },
			})
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: bearerClient("alice"), MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/3"})
			if err != nil || rr.Contents[0].Text != "item 3" {
				t.Fatalf("read: %+v %v", rr, err)
			}
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "ada"}})
			if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "up says hello to ada" {
				t.Fatalf("get: %+v %v", gp, err)
			}
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
				t.Fatal(err)
			}
			f.wait(t, "http updated test://a", func() {
				_ = up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://a"})
			})
			up.AddResource(&mcp.Resource{URI: "test://new", Name: "new"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://new", Text: "new"}}}, nil
			})
			f.wait(t, "http resources changed", nil)
			if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://new"}); err != nil || rr.Contents[0].Text != "new" {
				t.Fatalf("read of the resource the upstream added: %+v %v", rr, err)
			}
			subjects := map[string]int{}
			for _, r := range f.records(t) {
				subjects[r.Tool+" "+r.Subject]++
			}
			if subjects["resources/read alice"] != 2 || subjects["prompts/get alice"] != 1 || subjects["resources/subscribe alice"] != 1 || len(subjects) != 3 {
				t.Fatalf("ledger subjects %v; want alice's two reads, one get and one subscribe", subjects)
			}
		})
	}
}
