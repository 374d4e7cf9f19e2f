package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hits writes down what each request to a test server carried.
type hits struct {
	mu  sync.Mutex
	got []string
}

func (h *hits) add(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, fmt.Sprintf("%s %s auth=%q key=%q", r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")))
}

func (h *hits) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

func remoteTools() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// TestInspectHeadersStayWithTheirOrigin (#24.5): a remote server's
// configured headers (a PAT in Authorization, an API key) are not re-sent
// when the configured URL redirects to another host; the tools there are
// still listed.
func TestInspectHeadersStayWithTheirOrigin(t *testing.T) {
	const pat, key = "ghp_planted_pat_0123456789", "sk-planted-key-0123456789"
	var other hits
	tools := remoteTools()
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
		tools.ServeHTTP(w, r)
	}))
	t.Cleanup(elsewhere.Close)
	var own hits
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		own.add(r)
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"remote": {"url": %q, "headers": {"Authorization": "Bearer %s", "X-Api-Key": %q}}},
  "agentadapter": {"store": "memory:", "servers": {"remote": {"trust": "trusted"}}}}`, front.URL+"/mcp", pat, key))
	r := runBin(t, dir, nil, "--config", "gateway.json", "inspect")
	if r.code != 0 || !strings.Contains(r.stdout, "ping") {
		t.Fatalf("inspect through the redirect: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got := own.list(); len(got) == 0 || !strings.Contains(got[0], pat) || !strings.Contains(got[0], key) {
		t.Errorf("the configured origin was sent %q, want the headers", got)
	}
	got := other.list()
	if len(got) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, h := range got {
		if strings.Contains(h, pat) || strings.Contains(h, key) {
			t.Errorf("another host was sent the configured headers: %s", h)
		}
	}
}

// TestInspectOAuthIssuerPin (#24.6): oauth.issuer is honoured: a server
// whose metadata names another authorization server is refused before
// the gateway asks that server anything, client secret unsent.
func TestInspectOAuthIssuerPin(t *testing.T) {
	var seen hits
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.add(r)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, srv.URL+"/.well-known/oauth-protected-resource/mcp"))
		http.Error(w, "sign in", http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource": %q, "authorization_servers": [%q]}`, srv.URL+"/mcp", srv.URL)
	})
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"remote": {"url": %q}},
  "agentadapter": {"store": "memory:", "servers": {"remote": {"oauth": {"issuer": "https://login.example.com",
    "clientCredentials": {"clientId": "m2m", "clientSecret": "planted-client-secret-0123"}, "tokens": "tokens.json"}}}}}`, srv.URL+"/mcp"))
	r := runBin(t, dir, nil, "--config", "gateway.json", "inspect")
	if strings.Contains(r.stdout, "remote") || !strings.Contains(r.stderr, "not the configured issuer") {
		t.Errorf("inspect connected through an authorization server other than the pinned issuer, or did not say why (exit %d):\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "planted-client-secret") {
		t.Errorf("the output shows the client secret:\n%s%s", r.stdout, r.stderr)
	}
	for _, h := range seen.list() {
		if strings.Contains(h, "oauth-authorization-server") || strings.Contains(h, "openid-configuration") || strings.Contains(h, "Basic ") {
			t.Errorf("the gateway went on to the named authorization server: %s", h)
		}
	}
}
