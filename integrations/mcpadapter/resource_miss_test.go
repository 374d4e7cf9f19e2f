package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestResourceMissNamesURI: a resources/read miss through an export of
// upstreams carries the requested URI in its error data (SEP-2164), both
// for a URI no upstream owns and for one an upstream owns but answers not
// found, at both eras, a hostile URI coming back exactly as sent. Before,
// the data held only the kind (the draft suite's
// sep-2164-resource-not-found warned through serve).
func TestResourceMissNamesURI(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	up.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "gone://{id}", Name: "gone"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError(r.Params.URI)
	})
	for _, version := range []string{"", "2025-11-25"} {
		f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, version)
		for _, uri := range []string{"test://nowhere", "gone://x", "test://nowhere/\"}\u202e\x01" + strings.Repeat("é", 300)} {
			_, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var we *jsonrpc.Error
			if !errors.As(err, &we) {
				t.Fatalf("%q (%s): %v is not a JSON-RPC error", uri, version, err)
			}
			var data struct{ Kind, URI string }
			if err := json.Unmarshal(we.Data, &data); err != nil {
				t.Fatalf("%q (%s): data %s: %v", uri, version, we.Data, err)
			}
			if we.Code != mcp.CodeResourceNotFound || data.Kind != "not_found" || data.URI != uri {
				t.Errorf("read %q (%s): code %d data %s; want %d, kind not_found, the uri", uri, version, we.Code, we.Data, mcp.CodeResourceNotFound)
			}
		}
	}
}
