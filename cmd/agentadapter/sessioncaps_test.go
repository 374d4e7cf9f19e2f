package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeSessionCapsConfigured: the caps of "sessions" hold as set,
// without auth (every client on one address is one identity, as behind a
// reverse proxy): past perIdentity a new session gets 429, past max 503,
// both with Retry-After; a negative perIdentity turns that cap off.
func TestServeSessionCapsConfigured(t *testing.T) {
	tests := []struct {
		name     string
		sessions string
		open     int // sessions that open
		refusal  int
	}{
		{"perIdentity", `{"max": 10, "perIdentity": 2}`, 2, http.StatusTooManyRequests},
		{"max, no per-identity cap", `{"max": 3, "perIdentity": -1}`, 3, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "sessions": %s}}`, testServer, tt.sessions))
			s := startServe(t, dir, nil, "--config", "gateway.json")
			open := func() (int, http.Header) {
				t.Helper()
				req, _ := http.NewRequest("POST", s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode, resp.Header
			}
			for i := range tt.open {
				if code, h := open(); code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
					t.Fatalf("session %d: %d (session id %q), want 200 with a session", i+1, code, h.Get("Mcp-Session-Id"))
				}
			}
			for range 2 {
				code, h := open()
				if code != tt.refusal || h.Get("Retry-After") == "" {
					t.Errorf("past the cap: %d (Retry-After %q), want %d with Retry-After", code, h.Get("Retry-After"), tt.refusal)
				}
			}
		})
	}
}

// TestServeSessionCapsBehindProxy: behind a reverse proxy named in
// trustedProxies, sessions.perIdentity counts each client by the address
// the proxy forwards (the last X-Forwarded-For hop that is not a trusted
// proxy), so clients no longer share the proxy's cap; without
// trustedProxies the header is a client's claim and is ignored, so a
// client cannot escape its cap by inventing addresses.
func TestServeSessionCapsBehindProxy(t *testing.T) {
	tests := []struct {
		name    string
		proxies string
		opens   []string // X-Forwarded-For per session, in order
		want    []int
	}{
		{"trusted: per client", `["127.0.0.1"]`,
			[]string{"203.0.113.5", "203.0.113.5", "203.0.113.5", "203.0.113.6", "203.0.113.6"},
			[]int{200, 200, 429, 200, 200}},
		{"trusted: a chain counts its last untrusted hop", `["127.0.0.0/8"]`,
			[]string{"198.51.100.9, 203.0.113.5", "203.0.113.5, 127.0.0.2", "10.9.9.9, 203.0.113.5"},
			[]int{200, 200, 429}},
		{"trusted: no usable header counts the proxy", `["127.0.0.1"]`,
			[]string{"", "not-an-address", "::zz"},
			[]int{200, 200, 429}},
		{"untrusted: the header is ignored", `[]`,
			[]string{"198.51.100.1", "198.51.100.2", "198.51.100.3"},
			[]int{200, 200, 429}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "sessions": {"max": 50, "perIdentity": 2}, "trustedProxies": %s}}`, testServer, tt.proxies))
			s := startServe(t, dir, nil, "--config", "gateway.json")
			for i, xff := range tt.opens {
				req, _ := http.NewRequest("POST", s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if xff != "" {
					req.Header.Set("X-Forwarded-For", xff)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.want[i] {
					t.Errorf("session %d (X-Forwarded-For %q): %d, want %d", i+1, xff, resp.StatusCode, tt.want[i])
				}
			}
		})
	}
}
