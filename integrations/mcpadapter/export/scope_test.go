package export

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestStatelessScopeKeptNowhere: a request served statelessly (2026-07-28
// over HTTP) is a session of its own, its scope made for it and kept in no
// map (so no goroutine waits for its end); a session that outlives its
// requests (in memory here, as stdio) keeps one scope for all its calls.
func TestStatelessScopeKeptNowhere(t *testing.T) {
	type seen struct {
		session string
		kept    int // scopes in the server's map during the call
	}
	var srv *Server
	var calls []seen
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("probe", "Reports its session.", func(ctx context.Context, _ struct{}) (string, error) {
		kept := 0
		srv.sessions.Range(func(any, any) bool { kept++; return true })
		calls = append(calls, seen{adapter.SessionFromContext(ctx), kept})
		return "ok", nil
	}, nil))
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	srv, err := NewServer(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(cs *mcp.ClientSession) seen {
		t.Helper()
		if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe"}); err != nil || res.IsError {
			t.Fatal(err, res)
		}
		return calls[len(calls)-1]
	}

	hs := httptest.NewServer(srv.Handler(nil))
	t.Cleanup(hs.Close)
	stateless, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stateless.Close() })
	a, b := call(stateless), call(stateless)
	if a.session == "" || a.session == b.session {
		t.Errorf("two stateless requests ran in sessions %q and %q, want two of their own", a.session, b.session)
	}
	if a.kept != 0 || b.kept != 0 {
		t.Errorf("stateless requests kept %d and %d scopes during their calls, want none", a.kept, b.kept)
	}

	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	long, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { long.Close() })
	c, d := call(long), call(long)
	if c.session == "" || c.session != d.session || c.kept != 1 {
		t.Errorf("an in-memory session's calls ran in sessions %q and %q with %d scopes kept, want one session, kept", c.session, d.session, c.kept)
	}
}
