package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeListensBeforeServersConnect: serve opens its port before its
// servers connect. With an HTTP server that holds every request unanswered,
// /healthz answers at once, /readyz is 503 naming it, and an MCP client
// lists the other server's tools without waiting; once it answers, its
// tool arrives with tools/list_changed and /readyz turns 200.
func TestServeListensBeforeServersConnect(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "late", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, InputSchema: &jsonschema.Schema{Type: "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // accepted, read, and not answered until released
		case <-release:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		open()
		slow.CloseClientConnections()
		slow.Close()
	})

	dir := t.TempDir()
	writeFile(t, dir, "agentadapter.json", fmt.Sprintf(`{
  "mcpServers": {"slow": {"type": "http", "url": %q}, "notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}, "servers": {"slow": {"trust": "trusted", "connectTimeout": "2m"}}}
}`, slow.URL+"/mcp", testServer))

	cmd := exec.Command(bin, "serve", "--accept-launches", "--listen", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})

	// The address is logged once the port is open.
	addrRE := regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)
	var base string
	for base == "" {
		if m := addrRE.FindStringSubmatch(out.String()); m != nil {
			base = "http://" + m[1]
			break
		}
		select {
		case <-done:
			t.Fatalf("serve exited:\n%s", out.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Since(begin) > time.Minute {
			t.Fatalf("serve did not listen:\n%s", out.String())
		}
	}
	get := func(path string) (int, []byte) {
		t.Helper()
		c := &http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz = %d, want 200", code)
	}
	// Process start to a live /healthz: the store, the config and the
	// port, not the servers. Under -race the binary starts slower.
	took := time.Since(begin)
	limit := 200 * time.Millisecond
	if raceEnabled {
		limit = 2 * time.Second
	}
	if took > limit {
		t.Errorf("/healthz answered %v after start, want within %v", took, limit)
	}
	t.Logf("/healthz answered %v after the process started", took)

	type readiness struct {
		Ready    bool     `json:"ready"`
		NotReady []string `json:"notReady"`
		Servers  []struct {
			Name      string `json:"name"`
			Connected bool   `json:"connected"`
			Error     string `json:"error"`
		} `json:"servers"`
	}
	readyz := func() (int, readiness) {
		t.Helper()
		code, b := get("/readyz")
		var r readiness
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("/readyz: %v: %s", err, b)
		}
		return code, r
	}
	// notes (stdio) connects on its own; slow stays unanswered.
	deadline := time.Now().Add(time.Minute)
	for {
		code, r := readyz()
		if code != http.StatusServiceUnavailable || r.Ready {
			t.Fatalf("/readyz with slow unanswered = %d %+v, want 503", code, r)
		}
		if slices.Equal(r.NotReady, []string{"slow"}) {
			for _, s := range r.Servers {
				if s.Name == "slow" && s.Error != "connecting" {
					t.Errorf("/readyz says of slow %q, want connecting", s.Error)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never had only slow not ready: %+v\n%s", r, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	changed := make(chan struct{}, 8)
	cs := connect(t, base+"/mcp", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	// notes' tools reach the endpoint's registry just after /readyz
	// says connected.
	for names := toolNames(t, cs); len(names) == 0 || slices.Contains(names, "late"); names = toolNames(t, cs) {
		if slices.Contains(names, "late") || time.Now().After(deadline) {
			t.Fatalf("tools while slow is unanswered = %v, want notes' tools and no late", names)
		}
		time.Sleep(20 * time.Millisecond)
	}

	open()
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatalf("no tools/list_changed once slow answered\n%s", out.String())
	}
	deadline = time.Now().Add(time.Minute)
	for !slices.Contains(toolNames(t, cs), "late") {
		if time.Now().After(deadline) {
			t.Fatalf("slow's tool never listed\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := text(callTool(t, cs, "late", map[string]any{})); got != "late" {
		t.Errorf("late = %q", got)
	}
	for {
		code, r := readyz()
		if code == http.StatusOK {
			if !r.Ready || len(r.NotReady) != 0 {
				t.Errorf("/readyz 200 with %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never 200: %+v", r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
