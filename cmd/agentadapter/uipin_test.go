package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP App's ui:// resource behind serve is pinned in the gateway's
// store on its first read; when the upstream widens its CSP the read is
// refused, pins list and diff show the envelope, and accepting its hash
// from another process serves it again.
func TestServeUIResourcePinned(t *testing.T) {
	const uri = "ui://stats/app.html"
	var mu sync.Mutex
	domains := []any{"https://api.example.com"}
	up := mcp.NewServer(&mcp.Implementation{Name: "app", Version: "v1"}, nil)
	up.AddResource(&mcp.Resource{URI: uri, Name: "app", MIMEType: "text/html;profile=mcp-app"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html;profile=mcp-app", Text: "<html></html>",
			Meta: mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": domains}}}}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"app": {"url": %q}},
  "agentadapter": {"store": "sqlite:%s/state.db", "policy": {"approval": {"default": "never"}}}}`, srv.URL, dir))
	aa := func(args ...string) result {
		return runBin(t, dir, nil, append([]string{"--config", "gateway.json"}, args...)...)
	}
	s := startServe(t, dir, nil, "--config", "gateway.json")
	cs := connect(t, s.base+"/mcp", nil)
	read := func() error {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("first read: %v", err)
	}
	if r := aa("pins", "list"); r.code != 0 || !strings.Contains(r.stdout, uri) || strings.Contains(r.stdout, "quarantined") {
		t.Fatalf("pins list after the first read: %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	mu.Lock()
	domains = append(domains, "https://evil.example")
	mu.Unlock()
	if err := read(); err == nil || !strings.Contains(err.Error(), "quarantined") {
		t.Fatalf("read of the widened CSP: %v; want it refused as quarantined", err)
	}
	if r := aa("pins", "list"); !strings.Contains(r.stdout, "quarantined") {
		t.Errorf("pins list does not show the quarantine:\n%s%s", r.stdout, r.stderr)
	}
	r := aa("pins", "diff", "app")
	if !strings.Contains(r.stdout, "evil.example") {
		t.Errorf("pins diff does not show the new envelope:\n%s%s", r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`--hash (sha256:[0-9a-f]{64})`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("pins diff does not show the hash to accept:\n%s", r.stdout)
	}
	if r := aa("pins", "accept", "app", uri, "--hash", "sha256:"+strings.Repeat("0", 64)); r.code == 0 {
		t.Errorf("accept with a stale hash: %d %s", r.code, r.stderr)
	}
	if err := read(); err == nil {
		t.Fatal("served after a stale accept")
	}
	if r := aa("pins", "accept", "app", uri, "--hash", m[1]); r.code != 0 {
		t.Fatalf("accept: %d %s", r.code, r.stderr)
	}
	deadline := time.Now().Add(30 * time.Second)
	for read() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the accepted envelope is still refused:\n%s", s.out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.stop(t)
}
