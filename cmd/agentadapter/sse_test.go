package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	aliceSSE = "alice-token-5f2c9a1e7b3d8f4a6c0e"
	bobSSE   = "bob-token-5f2c9a1e7b3d8f4a6c0e9d"
)

// sseGatewayConfig writes a gateway with tokens for alice and bob and the
// legacy SSE transport on the virtual server "dev" alone.
func sseGatewayConfig(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:",
    "auth": {"tokens": [{"subject": "alice", "token": %q}, {"subject": "bob", "token": %q}]},
    "sessions": {"perIdentity": 3},
    "policy": {"approval": {"default": "never"}, "limits": {"perIdentity": {"calls": 1, "window": "1h"}}},
    "virtualServers": {"dev": {"legacySSE": true}, "other": {}}}}`, testServer, aliceSSE, bobSSE))
}

// connectSSE opens a go-sdk session over the legacy SSE transport.
func connectSSE(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "old-client", Version: "v1"}, nil)
	// The stream lives as long as Connect's context: the test's.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	cs, err := c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// rawStream opens GET url by hand and returns the message endpoint its
// first event names; the stream stays open until the test ends.
func rawStream(t *testing.T, url, token string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if ep, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return ep
		}
	}
	t.Fatalf("no endpoint event: %v", sc.Err())
	return ""
}

func sseStatus(t *testing.T, method, url, token string, body string, hdr map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if k := hdr["Host"]; k != "" {
		req.Host = k
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The legacy SSE transport: off unless configured (404), on for the
// virtual server that asks for it, behind the same token, identity,
// Host/Origin check, session caps and body limit as /mcp.
func TestServeLegacySSE(t *testing.T) {
	dir := t.TempDir()
	sseGatewayConfig(t, dir)
	s := startServe(t, dir, nil, "--config", "gateway.json")

	for _, p := range []string{"/sse", "/sse/other", "/sse/nowhere", "/message", "/message/other", "/sse/dev/x"} {
		if got := sseStatus(t, "GET", s.base+p, aliceSSE, "", map[string]string{"Accept": "text/event-stream"}); got != 404 {
			t.Errorf("GET %s where legacySSE is off: %d, want 404", p, got)
		}
	}
	if _, err := connectSSE(t, s.base+"/sse", aliceSSE); err == nil {
		t.Errorf("an SSE client connected to /sse, which is off")
	}
	if got := sseStatus(t, "GET", s.base+"/sse/dev", "", "", nil); got != 401 {
		t.Errorf("GET /sse/dev without a token: %d, want 401", got)
	}
	if _, err := connectSSE(t, s.base+"/sse/dev", "wrong-token"); err == nil {
		t.Errorf("an SSE client connected with a wrong token")
	}

	// On: list and call, as alice (her per-identity call limit is the proof
	// that the call was hers and not an anonymous session's).
	alice, err := connectSSE(t, s.base+"/sse/dev", aliceSSE)
	if err != nil {
		t.Fatalf("SSE connect: %v", err)
	}
	if names := toolNames(t, alice); !slices.Contains(names, "list_notes") {
		t.Errorf("tools over SSE: %v", names)
	}
	if res := callTool(t, alice, "list_notes", map[string]any{}); res.IsError {
		t.Errorf("call over SSE: %q", text(res))
	}
	if res := callTool(t, alice, "list_notes", map[string]any{}); !strings.Contains(text(res), "alice may make at most 1 calls") {
		t.Errorf("the SSE caller is not alice: %q", text(res))
	}

	// A session id is no credential: bob's token, or none, with alice's
	// session id is refused and nothing reaches her session.
	ep := rawStream(t, s.base+"/sse/dev", aliceSSE)
	if !strings.HasPrefix(ep, "/message/dev?sessionid=") {
		t.Fatalf("endpoint event %q", ep)
	}
	initMsg := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for who, tok := range map[string]string{"bob": bobSSE, "no token": "", "a wrong token": "nope"} {
		want := 404
		if who != "bob" {
			want = 401
		}
		if got := sseStatus(t, "POST", s.base+ep, tok, initMsg, nil); got != want {
			t.Errorf("POST to alice's session with %s: %d, want %d", who, got, want)
		}
	}
	// Another endpoint's path with the same session id is not found.
	if got := sseStatus(t, "POST", s.base+strings.Replace(ep, "/message/dev", "/message", 1), aliceSSE, initMsg, nil); got != 404 {
		t.Errorf("POST alice's session id at another endpoint: %d, want 404", got)
	}
	if got := sseStatus(t, "POST", s.base+ep, aliceSSE, initMsg, map[string]string{"Content-Type": "text/plain"}); got != 415 {
		t.Errorf("POST text/plain: %d, want 415", got)
	}
	if got := sseStatus(t, "POST", s.base+ep, aliceSSE, `{"jsonrpc":"2.0","id":1,"method":"x","params":"`+strings.Repeat("a", 5<<20)+`"}`, nil); got != 413 {
		t.Errorf("POST of 5 MB: %d, want 413", got)
	}
	if got := sseStatus(t, "POST", s.base+ep, aliceSSE, "{not json", nil); got != 400 {
		t.Errorf("POST of bad JSON: %d, want 400", got)
	}
	if got := sseStatus(t, "POST", s.base+ep, aliceSSE, initMsg, nil); got != 202 {
		t.Errorf("POST to her own session: %d, want 202", got)
	}

	// Another origin: a page's EventSource or form gets 403, and so does a
	// DNS-rebinding Host.
	evil := map[string]string{"Accept": "text/event-stream", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	if got := sseStatus(t, "GET", s.base+"/sse/dev", aliceSSE, "", evil); got != 403 {
		t.Errorf("cross-origin GET /sse/dev: %d, want 403", got)
	}
	// An <img> or a no-cors fetch sends Accept */* or none: its GET opens
	// a session all the same.
	for _, accept := range []string{"*/*", ""} {
		if got := sseStatus(t, "GET", s.base+"/sse/dev", aliceSSE, "", map[string]string{"Accept": accept, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); got != 403 {
			t.Errorf("cross-origin GET /sse/dev with Accept %q: %d, want 403", accept, got)
		}
	}
	if got := sseStatus(t, "POST", s.base+ep, aliceSSE, initMsg, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); got != 403 {
		t.Errorf("cross-origin POST: %d, want 403", got)
	}
	if got := sseStatus(t, "GET", s.base+"/sse/dev", aliceSSE, "", map[string]string{"Host": "rebind.example"}); got != 403 {
		t.Errorf("GET with a rebinding Host: %d, want 403", got)
	}

	// Session caps: alice holds 2 streams; the third is her last, the
	// fourth is refused. Bob is not.
	rawStream(t, s.base+"/sse/dev", aliceSSE)
	if got := sseStatus(t, "GET", s.base+"/sse/dev", aliceSSE, "", nil); got != 429 {
		t.Errorf("alice's fourth stream: %d, want 429", got)
	}
	if _, err := connectSSE(t, s.base+"/sse/dev", bobSSE); err != nil {
		t.Errorf("bob's stream was refused by alice's cap: %v", err)
	}
	s.stop(t)
}

// A reload acts on legacy SSE streams as on streamable sessions: turning
// auth on ends the anonymous ones, revoking a token ends its streams (the
// others go on), turning legacySSE off ends the rest and answers 404.
func TestServeLegacySSEReload(t *testing.T) {
	dir := t.TempDir()
	write := func(auth string, sse bool) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", %s "legacySSE": %t, "policy": {"approval": {"default": "never"}}}}`, testServer, auth, sse))
	}
	ended := func(cs *mcp.ClientSession) <-chan struct{} {
		ch := make(chan struct{})
		go func() { _ = cs.Wait(); close(ch) }()
		return ch
	}
	wantEnd := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Errorf("%s: the stream is still open", what)
		}
	}
	write("", true)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	anon, err := connectSSE(t, s.base+"/sse", "")
	if err != nil {
		t.Fatalf("anonymous SSE: %v", err)
	}
	anonEnded := ended(anon)

	both := fmt.Sprintf(`"auth": {"tokens": [{"subject": "alice", "token": %q}, {"subject": "bob", "token": %q}]},`, aliceSSE, bobSSE)
	write(both, true)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 1)
	wantEnd("anonymous, after auth was turned on", anonEnded)

	alice, err := connectSSE(t, s.base+"/sse", aliceSSE)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := connectSSE(t, s.base+"/sse", bobSSE)
	if err != nil {
		t.Fatal(err)
	}
	aliceEnded, bobEnded := ended(alice), ended(bob)
	write(fmt.Sprintf(`"auth": {"tokens": [{"subject": "bob", "token": %q}]},`, bobSSE), true)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 2)
	wantEnd("alice's, after her token was removed", aliceEnded)
	if names := toolNames(t, bob); !slices.Contains(names, "list_notes") {
		t.Errorf("bob's stream after alice's token was removed: %v", names)
	}

	write(fmt.Sprintf(`"auth": {"tokens": [{"subject": "bob", "token": %q}]},`, bobSSE), false)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 3)
	wantEnd("bob's, after legacySSE was turned off", bobEnded)
	if got := sseStatus(t, "GET", s.base+"/sse", bobSSE, "", nil); got != 404 {
		t.Errorf("GET /sse after legacySSE was turned off: %d, want 404", got)
	}
	s.stop(t)
}

// The official TypeScript SDK client over the legacy SSE transport, as an
// old host would connect: list and call through serve, as its token's
// subject.
func TestServeLegacySSETypeScript(t *testing.T) {
	dir := t.TempDir()
	sseGatewayConfig(t, dir)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	errs, figures := nodeScript(t, "sse.mjs", s.base+"/sse/dev", aliceSSE, "whoami")
	for _, e := range errs {
		t.Error(e)
	}
	if figures["isError"] != false {
		t.Errorf("whoami over SSE: %v", figures)
	}
	errs, _ = nodeScript(t, "sse.mjs", s.base+"/sse/dev", "wrong-token-0123456789abcdef01234", "whoami")
	if len(errs) == 0 {
		t.Errorf("the TypeScript client connected with a wrong token")
	}
	s.stop(t)
}

// With auth, one subject's cap counts its streamable sessions and its SSE
// streams together.
func TestServeLegacySSESessionCap(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "legacySSE": true, "sessions": {"perIdentity": 2},
    "auth": {"tokens": [{"subject": "alice", "token": %q}, {"subject": "bob", "token": %q}]}}}`, testServer, aliceSSE, bobSSE))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{aliceSSE}}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // a session: 2026-07-28 has none
	if err != nil || cs.ID() == "" {
		t.Fatalf("alice's streamable session: %v", err)
	}
	defer cs.Close()
	if _, err := connectSSE(t, s.base+"/sse", aliceSSE); err != nil {
		t.Fatalf("alice's second session (SSE): %v", err)
	}
	if got := sseStatus(t, "GET", s.base+"/sse", aliceSSE, "", nil); got != 429 {
		t.Errorf("alice's third session (SSE, after one streamable and one SSE): %d, want 429", got)
	}
	if _, err := connectSSE(t, s.base+"/sse", bobSSE); err != nil {
		t.Errorf("bob's stream was refused by alice's cap: %v", err)
	}
	s.stop(t)
}
