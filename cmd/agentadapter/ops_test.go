package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func notesConfig(t *testing.T, dir, extra string) {
	t.Helper()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}%s}}`, testServer, extra))
}

// serve --stdio is an MCP server a client starts itself.
func TestServeStdio(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	cmd := exec.Command(bin, "--config", "gateway.json", "--accept-launches", "serve", "--stdio")
	cmd.Dir = dir
	var stderr syncBuffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	if names := toolNames(t, cs); !slices.Contains(names, "add_note") {
		t.Errorf("tools over stdio: %v", names)
	}
	res := callTool(t, cs, "add_note", map[string]any{"text": "over stdio"})
	if res.IsError || !strings.Contains(text(res), `"text":"over stdio"`) {
		t.Errorf("add_note over stdio: %q", text(res))
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	// The child server went with the gateway.
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// A stdio server that dies is restarted with backoff; what it writes on
// stderr reaches the gateway's log.
func TestSupervision(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	s := startServe(t, dir, nil, "--config", "gateway.json")
	if !strings.Contains(s.out.String(), `msg="server stderr" server=notes line="notes server starting`) {
		t.Errorf("the server's stderr is not in the log:\n%s", s.out.String())
	}
	kids := descendants(s.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("want one child process, got %v", kids)
	}
	syscall.Kill(kids[0], syscall.SIGKILL)
	deadline := time.Now().Add(60 * time.Second)
	for {
		now := descendants(s.cmd.Process.Pid)
		if len(now) == 1 && now[0] != kids[0] && alive(now[0]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was not restarted (children %v):\n%s", now, s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cs := connect(t, s.base+"/mcp", nil)
	if res := callTool(t, cs, "list_notes", map[string]any{}); res.IsError {
		t.Errorf("list_notes after the restart: %q", text(res))
	}
	cs.Close()
	s.stop(t)
}

// SIGTERM lets a call in flight finish, then stops.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	s := startServe(t, dir, nil, "--config", "gateway.json")
	cs := connect(t, s.base+"/mcp", nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 1500}})
		if err != nil {
			t.Errorf("the call in flight failed: %v", err)
		}
		done <- res
	}()
	time.Sleep(500 * time.Millisecond) // the call is in flight
	kids := descendants(s.cmd.Process.Pid)
	s.stop(t)
	select {
	case res := <-done:
		if res != nil && (res.IsError || !strings.Contains(text(res), "slept 1500ms")) {
			t.Errorf("the drained call: %q", text(res))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight never finished")
	}
	for _, pid := range kids {
		if alive(pid) {
			t.Errorf("process %d outlived the gateway", pid)
		}
	}
	if _, err := http.Get(s.base + "/healthz"); err == nil {
		t.Errorf("the gateway still answers after SIGTERM")
	}
}

// Inbound bearer tokens: none or a wrong one is refused; the subject is
// who the limits and the ledger see.
func TestServeAuth(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "tokens.txt", "# subject token\nbob bob-token-5f2c9a1e7b3d8f4a6c0e9d\n")
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "auth": {"tokens": [{"subject": "alice", "token": "${ALICE_TOKEN}"}], "tokensFile": "tokens.txt"},
  "policy": {"approval": {"default": "never"}, "limits": {"perIdentity": {"calls": 1, "window": "1h"}}}}}`, testServer))
	s := startServe(t, dir, []string{"ALICE_TOKEN=alice-token-5f2c9a1e7b3d8f4a6c0e"}, "--config", "gateway.json")
	resp, err := http.Post(s.base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
	as := func(token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
		hc := &http.Client{Transport: bearer{token}}
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatalf("connect with %s: %v", token, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	if _, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{"wrong"}}}, nil); err == nil {
		t.Errorf("a wrong token connected")
	}
	for token, want := range map[string]int{"": 401, "wrong": 401, "bob-token-5f2c9a1e7b3d8f4a6c0e9d": 200} {
		req, _ := http.NewRequest("GET", s.base+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/metrics with token %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
	alice, bob := as("alice-token-5f2c9a1e7b3d8f4a6c0e"), as("bob-token-5f2c9a1e7b3d8f4a6c0e9d")
	for i, want := range []bool{false, true} {
		res := callTool(t, alice, "list_notes", map[string]any{})
		if limited := strings.Contains(text(res), "run_limit_exceeded") && strings.Contains(text(res), "alice"); limited != want {
			t.Errorf("alice call %d: %q", i+1, text(res))
		}
	}
	if res := callTool(t, bob, "list_notes", map[string]any{}); res.IsError {
		t.Errorf("bob's first call was limited by alice's: %q", text(res))
	}
	s.stop(t)
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Inbound JWTs: the subject of a valid token is the caller; a token that
// is expired, from another issuer, unsigned or signed with another key
// is refused.
func TestServeJWT(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "auth": {"jwt": {"secret": "${JWT_SECRET}", "issuer": "https://idp.example", "audience": "gateway"}},
  "policy": {"approval": {"default": "never"}, "limits": {"perIdentity": {"calls": 1, "window": "1h"}}}}}`, testServer))
	secret := []byte("0123456789abcdef0123456789abcdef")
	s := startServe(t, dir, []string{"JWT_SECRET=" + string(secret)}, "--config", "gateway.json")
	sign := func(key any, method jwt.SigningMethod, claims jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := jwt.MapClaims{"sub": "carol", "iss": "https://idp.example", "aud": "gateway", "exp": time.Now().Add(time.Hour).Unix()}
	with := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for kk, vv := range good {
			c[kk] = vv
		}
		c[k] = v
		return c
	}
	for name, tok := range map[string]string{
		"expired":      sign(secret, jwt.SigningMethodHS256, with("exp", time.Now().Add(-time.Hour).Unix())),
		"other issuer": sign(secret, jwt.SigningMethodHS256, with("iss", "https://evil.example")),
		"other key":    sign([]byte("another secret, 32 bytes long!!!"), jwt.SigningMethodHS256, good),
		"unsigned":     sign(jwt.UnsafeAllowNoneSignatureType, jwt.SigningMethodNone, good),
		// An anonymous session's name: such a subject would take over
		// that session's tickets.
		"anonymous subject": sign(secret, jwt.SigningMethodHS256, with("sub", "anonymous:0123")),
	} {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
		if _, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{tok}}}, nil); err == nil {
			t.Errorf("a token %s was accepted", name)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{sign(secret, jwt.SigningMethodHS256, good)}}}, nil)
	if err != nil {
		t.Fatalf("a valid JWT was refused: %v", err)
	}
	defer cs.Close()
	callTool(t, cs, "list_notes", map[string]any{})
	if res := callTool(t, cs, "list_notes", map[string]any{}); !strings.Contains(text(res), "carol may make at most 1 calls") {
		t.Errorf("the JWT subject is not the caller: %q", text(res))
	}
	s.stop(t)
}

// connectAs opens a session with a bearer token.
func connectAs(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect with a token: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
