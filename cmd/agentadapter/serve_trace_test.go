package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lastCallMeta returns the _meta of the last tools/call u received.
func (u *recordingUpstream) lastCallMeta(t *testing.T) map[string]any {
	t.Helper()
	reqs := u.requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		var msg struct {
			Method string
			Params struct {
				Meta map[string]any `json:"_meta"`
			}
		}
		if json.Unmarshal(reqs[i].body, &msg) == nil && msg.Method == "tools/call" {
			return msg.Params.Meta
		}
	}
	t.Fatal("the upstream received no tools/call")
	return nil
}

// TestServeTraceContext: the W3C trace context (SEP-414) a client puts in a
// tools/call _meta reaches the upstream through serve, at both protocol
// eras on both sides, so the upstream joins the client's trace; serve
// installs no tracer, so it passes the context on as it came. A malformed
// traceparent is not forwarded and does not fail the call.
func TestServeTraceContext(t *testing.T) {
	up := newRecordingUpstream(t, true)   // 2026-07-28
	old := newRecordingUpstream(t, false) // 2025-11-25, with sessions
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {
    "up": {"type": "http", "url": %q},
    "old": {"type": "http", "url": %q}},
  "agentadapter": {"store": "memory:",
    "servers": {"up": {"prefix": true}, "old": {"prefix": true}},
    "policy": {"approval": {"default": "never"}}}}`, up.URL+"/mcp", old.URL+"/mcp"))
	s := startServe(t, dir, nil, "--config", "gateway.json")

	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "v1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		cancel()
		if err != nil {
			t.Fatalf("%s: connect: %v", version, err)
		}
		defer cs.Close()
		for _, upstream := range []struct {
			tool string
			u    *recordingUpstream
		}{{"up_locate", up}, {"old_locate", old}} {
			for _, tc := range []struct {
				meta      map[string]any
				wantTrace any
			}{
				{map[string]any{"traceparent": traceparent, "tracestate": "vendor=abc"}, traceparent},
				{map[string]any{"traceparent": "00-not-a-trace-01", "tracestate": "vendor=abc"}, nil},
				{map[string]any{"traceparent": 7}, nil},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: upstream.tool, Arguments: map[string]any{}, Meta: tc.meta})
				cancel()
				if err != nil || res.IsError {
					t.Fatalf("%s: %s with _meta %v: %v %v", version, upstream.tool, tc.meta, err, res)
				}
				meta := upstream.u.lastCallMeta(t)
				if got := meta["traceparent"]; got != tc.wantTrace {
					t.Errorf("%s: %s with _meta %v: upstream traceparent %v, want %v", version, upstream.tool, tc.meta, got, tc.wantTrace)
				}
				wantState := any(nil)
				if tc.wantTrace != nil {
					wantState = "vendor=abc"
				}
				if got := meta["tracestate"]; got != wantState {
					t.Errorf("%s: %s with _meta %v: upstream tracestate %v, want %v", version, upstream.tool, tc.meta, got, wantState)
				}
			}
		}
	}
}
